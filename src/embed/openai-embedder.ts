/**
 * Any OpenAI-compatible `/v1/embeddings` API: batched, each call time-limited, retried with
 * exponential backoff on network errors, 429 and 5xx. Other statuses fail at once.
 */
import type { Embedder } from '../ports/embedder.js';
import { normalise } from '../ports/embedder.js';

export interface OpenAiEmbedderOptions {
  url: string;
  apiKey?: string | undefined;
  model: string;
  batchSize: number;
  timeoutMs: number;
  retries: number;
  /** Base backoff in ms (doubled per retry); tests shorten it. */
  backoffMs?: number;
}

interface EmbeddingsResponse {
  data?: { embedding?: unknown; index?: number }[];
}

export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly remedy = 'check EMBEDDINGS_URL and EMBEDDINGS_API_KEY, or set EMBEDDINGS=local to use the bundled offline model';
  readonly #endpoint: string;

  constructor(private readonly o: OpenAiEmbedderOptions) {
    this.model = `openai:${o.model}`;
    const base = o.url.replace(/\/+$/, '');
    this.#endpoint = base.endsWith('/embeddings') ? base : base.endsWith('/v1') ? `${base}/embeddings` : `${base}/v1/embeddings`;
  }

  get source(): string {
    return this.#endpoint;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<(Float32Array | null)[]> {
    const out: (Float32Array | null)[] = [];
    for (let i = 0; i < texts.length; i += this.o.batchSize) {
      out.push(...(await this.#batch(texts.slice(i, i + this.o.batchSize), signal)));
    }
    return out;
  }

  async #batch(texts: readonly string[], signal?: AbortSignal): Promise<(Float32Array | null)[]> {
    // The API rejects empty strings; they have no vector anyway.
    const wanted = texts.map((t, i) => ({ t: t.trim(), i })).filter((x) => x.t !== '');
    const result: (Float32Array | null)[] = texts.map(() => null);
    if (wanted.length === 0) return result;
    let lastError: unknown;
    for (let attempt = 0; attempt <= this.o.retries; attempt++) {
      if (attempt > 0) await sleep((this.o.backoffMs ?? 500) * 2 ** (attempt - 1), signal);
      try {
        const res = await fetch(this.#endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(this.o.apiKey ? { authorization: `Bearer ${this.o.apiKey}` } : {}),
          },
          body: JSON.stringify({ model: this.o.model, input: wanted.map((w) => w.t) }),
          signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(this.o.timeoutMs)]) : AbortSignal.timeout(this.o.timeoutMs),
        });
        if (res.status === 429 || res.status >= 500) {
          lastError = new Error(`embeddings API answered ${res.status}`);
          await res.body?.cancel();
          continue;
        }
        if (!res.ok) throw new PermanentError(`embeddings API answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
        const body = (await res.json()) as EmbeddingsResponse;
        const data = body.data ?? [];
        if (data.length !== wanted.length) throw new PermanentError(`embeddings API returned ${data.length} vectors for ${wanted.length} inputs`);
        data.forEach((d, k) => {
          const at = typeof d.index === 'number' ? d.index : k;
          const w = wanted[at];
          if (!w || !Array.isArray(d.embedding)) throw new PermanentError('embeddings API returned a malformed vector');
          result[w.i] = normalise(Float32Array.from(d.embedding as number[]));
        });
        return result;
      } catch (err) {
        if (err instanceof PermanentError || signal?.aborted) throw err;
        lastError = err;
      }
    }
    throw lastError instanceof Error ? lastError : new Error('embeddings API failed');
  }
}

class PermanentError extends Error {}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });
}
