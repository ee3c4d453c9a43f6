/**
 * Vectors held in this process's memory, and the nearest of them to a query: the semantic leg
 * where the database has no vector index of its own (SQLite; PostgreSQL without pgvector).
 * Scoring a few thousand vectors in a typed array takes a fraction of what the same scan costs
 * as SQL, one row at a time. Each store keeps its copy current its own way (sqlite-vectors.ts,
 * pg-vectors.ts); the database still decides which of the nearest are live and pass the filters.
 */
import type { SemanticHit, SemanticQuery } from '../ports/search-index.js';
import { toCandidate, type CandidateColumns } from './object-columns.js';

/** Unit length (cosine similarity is then a dot product); a zero vector stays zero. */
function unit(v: ArrayLike<number>): Float32Array {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  const out = Float32Array.from(v);
  if (norm > 0) {
    const k = 1 / Math.sqrt(norm);
    for (let i = 0; i < out.length; i++) out[i]! *= k;
  }
  return out;
}

/** A float32 vector stored as bytes (SQLite BLOB); copied, since a Buffer's offset may not be aligned. */
export const blobVector = (b: Uint8Array): Float32Array => new Float32Array(Uint8Array.from(b).buffer);

/** Every vector of one model: about 4 × dimension + 60 bytes per object. */
export class ModelVectors {
  #dim = 0;
  #seqs: number[] = [];
  #data = new Float32Array(0);
  readonly #at = new Map<number, number>();
  /** Moves with every change: an ordering computed before a change no longer maps to seqs. */
  #version = 0;

  get size(): number {
    return this.#seqs.length;
  }

  put(seq: number, embedding: ArrayLike<number>): void {
    if (this.#dim === 0) this.#dim = embedding.length;
    // A model answers in one dimension; a stray vector of another is not comparable.
    if (embedding.length !== this.#dim) return;
    let i = this.#at.get(seq);
    if (i === undefined) {
      i = this.#seqs.push(seq) - 1;
      this.#at.set(seq, i);
      if (this.#data.length < this.#seqs.length * this.#dim) {
        const grown = new Float32Array(Math.max(this.#dim * 1024, this.#data.length * 2));
        grown.set(this.#data);
        this.#data = grown;
      }
    }
    this.#data.set(unit(embedding), i * this.#dim);
    this.#version++;
  }

  remove(seq: number): void {
    const i = this.#at.get(seq);
    if (i === undefined) return;
    // Move the last vector into the hole.
    const last = this.#seqs.length - 1;
    const lastSeq = this.#seqs[last]!;
    this.#data.copyWithin(i * this.#dim, last * this.#dim, (last + 1) * this.#dim);
    this.#seqs[i] = lastSeq;
    this.#at.set(lastSeq, i);
    this.#seqs.pop();
    this.#at.delete(seq);
    this.#version++;
  }

  /**
   * Seqs with their cosine similarity to `query`, nearest first (ties by seq), in growing
   * slices: the first `first`, then four times as many each time the caller asks for more.
   * Only the first slice is selected without sorting everything.
   */
  *nearest(query: Float32Array, first: number): Generator<{ seq: number; similarity: number }[]> {
    if (this.size === 0 || query.length !== this.#dim) return;
    const q = unit(query);
    let { sims, seqs, version } = this.#score(q);
    const better = (a: number, b: number) => sims[a]! > sims[b]! || (sims[a] === sims[b] && seqs[a]! < seqs[b]!);
    const top = topIndices(sims.length, Math.max(1, first), better);
    const given = new Set<number>();
    const slice = (idx: Iterable<number>) => Array.from(idx, (i) => (given.add(seqs[i]!), { seq: seqs[i]!, similarity: sims[i]! }));
    yield slice(top);
    if (top.length >= sims.length) return;
    // More were wanted (filters passed over many): order the rest, from a fresh score if the
    // vectors changed while the caller was away.
    if (version !== this.#version) ({ sims, seqs, version } = this.#score(q));
    const rest = [...sims.keys()].filter((i) => !given.has(seqs[i]!)).sort((a, b) => sims[b]! - sims[a]! || seqs[a]! - seqs[b]!);
    for (let from = 0, size = top.length * 4; from < rest.length; from += size, size *= 4) yield slice(rest.slice(from, from + size));
  }

  #score(q: Float32Array): { sims: Float32Array; seqs: readonly number[]; version: number } {
    const n = this.#seqs.length;
    const dim = this.#dim;
    const data = this.#data;
    const sims = new Float32Array(n);
    for (let i = 0, off = 0; i < n; i++, off += dim) {
      let dot = 0;
      for (let d = 0; d < dim; d++) dot += data[off + d]! * q[d]!;
      sims[i] = dot;
    }
    return { sims, seqs: this.#seqs.slice(), version: this.#version };
  }
}

/** The best `k` of indices 0..n-1 by `better`, best first: a bounded heap, O(n log k). */
export function topIndices(n: number, k: number, better: (a: number, b: number) => boolean): number[] {
  if (k >= n) return Array.from({ length: n }, (_, i) => i).sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
  // A heap whose root is the worst kept index.
  const heap: number[] = [];
  const worse = (a: number, b: number) => better(b, a);
  const up = (j: number) => {
    while (j > 0) {
      const p = (j - 1) >> 1;
      if (!worse(heap[j]!, heap[p]!)) return;
      [heap[j], heap[p]] = [heap[p]!, heap[j]!];
      j = p;
    }
  };
  const down = (j: number) => {
    for (;;) {
      const l = 2 * j + 1;
      const r = l + 1;
      let w = j;
      if (l < heap.length && worse(heap[l]!, heap[w]!)) w = l;
      if (r < heap.length && worse(heap[r]!, heap[w]!)) w = r;
      if (w === j) return;
      [heap[j], heap[w]] = [heap[w]!, heap[j]!];
      j = w;
    }
  };
  for (let i = 0; i < n; i++) {
    if (heap.length < k) {
      heap.push(i);
      up(heap.length - 1);
    } else if (better(i, heap[0]!)) {
      heap[0] = i;
      down(0);
    }
  }
  return heap.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
}

/**
 * The nearest `q.limit` that are live and pass the filters, nearest first: slices of the
 * nearest go to the database (`liveAmong`, by seq) until enough pass.
 */
export async function nearestLive(
  vectors: ModelVectors,
  q: SemanticQuery,
  liveAmong: (seqs: number[]) => Promise<Map<number, CandidateColumns>>,
): Promise<SemanticHit[]> {
  const hits: SemanticHit[] = [];
  // Most of the nearest are live and pass: a quarter more than asked usually suffices, and each
  // seq read costs the database a row lookup.
  for (const slice of vectors.nearest(q.vector, Math.ceil(q.limit * 1.25) + 16)) {
    const found = await liveAmong(slice.map((s) => s.seq));
    for (const s of slice) {
      const row = found.get(s.seq);
      if (row && hits.length < q.limit) hits.push(toCandidate(row, { similarity: s.similarity }));
    }
    if (hits.length >= q.limit) break;
  }
  return hits;
}

/**
 * Brings loaded models up to date with the rows now stored for `seqs` (read after the change):
 * a seq with no row lost its vector; a row belongs to its model and to no other.
 */
export function applyRows(models: Iterable<[string, ModelVectors]>, seqs: Iterable<number>, rows: readonly { seq: number; model: string; embedding: ArrayLike<number> }[]): void {
  const found = new Set(rows.map((r) => r.seq));
  const loaded = [...models];
  for (const [, m] of loaded) for (const s of seqs) if (!found.has(s)) m.remove(s);
  for (const r of rows) {
    for (const [name, m] of loaded) {
      if (name === r.model) m.put(r.seq, r.embedding);
      else m.remove(r.seq);
    }
  }
}
