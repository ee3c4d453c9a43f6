/**
 * The Embedder port: text → unit vectors. Providers: a local model (transformers.js), an
 * OpenAI-compatible HTTP API, or none. `model` is stored with every vector, so a change of
 * model re-embeds.
 */
export interface Embedder {
  /** Identifies the model (and so the vector space) the vectors come from. */
  readonly model: string;
  /** Where vectors come from, for the start-up log: a folder, a hub address or an API URL. */
  readonly source: string;
  /** What an operator can do when the model cannot be reached. */
  readonly remedy: string;
  /**
   * One L2-normalised vector per text, in order; `null` for a text that has nothing the model
   * can embed (empty, or only unknown tokens). Rejects when the model cannot answer.
   */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<(Float32Array | null)[]>;
  /** Releases what the embedder holds (a thread); embed() may start it again. */
  close?(): Promise<void>;
}

/** L2-normalises in place; returns null for a zero or non-finite vector. */
export function normalise(v: Float32Array): Float32Array | null {
  let sum = 0;
  for (const x of v) sum += x * x;
  if (!Number.isFinite(sum) || sum === 0) return null;
  const n = Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}
