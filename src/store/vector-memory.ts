/**
 * Vectors held in this process's memory, and the nearest of them to a query: the semantic leg
 * where the database has no vector index of its own (SQLite; PostgreSQL without pgvector).
 * Scoring a few thousand vectors in a typed array takes a fraction of what the same scan costs
 * as SQL, one row at a time. Each store keeps its copy current its own way (sqlite-vectors.ts,
 * pg-vectors.ts); the database still decides which of the nearest are live and pass the filters.
 */
import type { SemanticHit, SemanticQuery, VectorIndexSettings } from '../ports/search-index.js';
import { toCandidate, type CandidateColumns } from './object-columns.js';
import { CodeRows } from './int8-dot.js';
import { LISTS, VectorLists } from './vector-lists.js';
import { bestIndices, Scratch } from './best-indices.js';

/** `v` at unit length (cosine similarity is then a dot product), in `out`; a zero vector stays zero. */
function unit(v: ArrayLike<number>, out: Float32Array = new Float32Array(v.length)): Float32Array {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  const k = norm > 0 ? 1 / Math.sqrt(norm) : 1;
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * k;
  return out;
}

/**
 * A float32 vector stored as bytes (SQLite BLOB), copied (a Buffer's offset may not be aligned):
 * into `into` when it has the length, so that loading a million vectors makes no garbage of them.
 */
export const blobVector = (b: Uint8Array, into?: Float32Array): Float32Array => {
  const out = into && into.byteLength === b.byteLength ? into : new Float32Array(b.byteLength / 4);
  new Uint8Array(out.buffer, out.byteOffset, out.byteLength).set(b);
  return out;
};

/**
 * Where each seq's vector is (its slot), in a typed array indexed by seq while seqs are dense
 * (they are the store's own increasing row ids): 4 bytes per seq instead of a Map entry's 30
 * or so. A seq that would leave the array mostly empty moves every entry to a Map.
 */
export class SlotIndex {
  #dense: Int32Array | null = new Int32Array(1024);
  #map: Map<number, number> | null = null;
  #size = 0;

  get(seq: number): number | undefined {
    if (this.#map) return this.#map.get(seq);
    const slot = this.#indexable(seq) && seq < this.#dense!.length ? this.#dense![seq]! - 1 : -1;
    return slot < 0 ? undefined : slot;
  }

  set(seq: number, slot: number): void {
    if (!this.#map && !(this.#indexable(seq) && seq < this.#dense!.length)) {
      // Dense while the array stays within 4 slots per entry (and a floor of 64 Ki).
      const length = Math.max(seq + 1, this.#dense!.length * 2);
      if (this.#indexable(seq) && length <= Math.max(65_536, 4 * (this.#size + 1)) && length < 2 ** 31) {
        const grown = new Int32Array(length);
        grown.set(this.#dense!);
        this.#dense = grown;
      } else {
        this.#map = new Map();
        this.#dense!.forEach((s, q) => s > 0 && this.#map!.set(q, s - 1));
        this.#dense = null;
      }
    }
    if (this.get(seq) === undefined) this.#size++;
    if (this.#map) this.#map.set(seq, slot);
    else this.#dense![seq] = slot + 1;
  }

  #indexable(seq: number): boolean {
    return Number.isInteger(seq) && seq >= 0;
  }

  delete(seq: number): void {
    if (this.get(seq) === undefined) return;
    this.#size--;
    if (this.#map) this.#map.delete(seq);
    else this.#dense![seq] = 0;
  }
}

export type { VectorIndexSettings };
export { bestIndices, Scratch } from './best-indices.js';

export const DEFAULT_VECTOR_INDEX: VectorIndexSettings = { approximateFrom: 100_000, probes: 96 };

/** Scores of some slots (all of them when `slots` is null), to be read before the vectors change. */
interface Scored {
  slots: Int32Array | null;
  sims: Float32Array;
  count: number;
  seqs: readonly number[];
}

/**
 * Every vector of one model, each kept as one signed byte per dimension with its own scale:
 * about dimension + 75 bytes per object, a quarter of float32's. The similarities it answers
 * are within about 0.001 of the exact cosine (reading the exact vectors back from the database
 * to re-rank cost more than the whole scan on a small board). From
 * `approximateFrom` vectors on, the first slice comes from the lists of an inverted file
 * (vector-lists.ts), learnt then and again each time the vectors have doubled.
 */
export class ModelVectors {
  #dim = 0;
  /** The codes, a row per vector; made at the first vector, when the dimension is known. */
  #rows: CodeRows | null = null;
  /** put's scratch: the unit vector and its codes. */
  #unit: Float32Array | null = null;
  #codes: Int8Array | null = null;
  #seqs: number[] = [];
  #scales = new Float32Array(0);
  #listOf = new Uint16Array(0);
  readonly #at = new SlotIndex();
  #lists: VectorLists | null = null;
  /**
   * The first slice's arrays, kept from query to query: made anew, a large board's probed slots
   * and scores were garbage that the allocator kept as RSS long after.
   */
  readonly #scratch = new Scratch();
  /** How many vectors there were when the lists were learnt. */
  #listsFor = 0;
  constructor(private readonly index: VectorIndexSettings = DEFAULT_VECTOR_INDEX) {}

  get size(): number {
    return this.#seqs.length;
  }

  /** Whether the next query's first slice comes from the approximate index. */
  get approximate(): boolean {
    return this.size >= this.index.approximateFrom;
  }

  put(seq: number, embedding: ArrayLike<number>): void {
    if (this.#dim === 0) {
      this.#dim = embedding.length;
      this.#rows = new CodeRows(this.#dim);
    }
    // A model answers in one dimension; a stray vector of another is not comparable.
    if (embedding.length !== this.#dim) return;
    let i = this.#at.get(seq);
    if (i === undefined) {
      i = this.#seqs.push(seq) - 1;
      this.#at.set(seq, i);
      if (this.#scales.length < this.#seqs.length) this.#grow(Math.max(1024, this.#scales.length * 2));
    }
    // Scratch, not garbage: a board loads a million of these at start.
    const u = unit(embedding, (this.#unit ??= new Float32Array(this.#dim)));
    let max = 0;
    for (const x of u) max = Math.max(max, Math.abs(x));
    const scale = max / 127;
    const codes = (this.#codes ??= new Int8Array(this.#dim));
    for (let d = 0; d < this.#dim; d++) codes[d] = scale > 0 ? Math.round(u[d]! / scale) : 0;
    this.#rows!.set(i, codes);
    this.#scales[i] = scale;
    if (this.#lists) this.#listOf[i] = this.#lists.assign(u);
  }

  remove(seq: number): void {
    const i = this.#at.get(seq);
    if (i === undefined) return;
    // Move the last vector into the hole.
    const last = this.#seqs.length - 1;
    const lastSeq = this.#seqs[last]!;
    this.#rows!.move(last, i);
    this.#scales[i] = this.#scales[last]!;
    this.#listOf[i] = this.#listOf[last]!;
    this.#seqs[i] = lastSeq;
    this.#at.set(lastSeq, i);
    this.#seqs.pop();
    this.#at.delete(seq);
  }

  /**
   * Seqs with their (approximate) cosine similarity to `query`, nearest first (ties by seq),
   * in growing slices: the first `first`, then four times as many each time the caller asks
   * for more. The first slice is selected without sorting everything, and from the nearest
   * lists once the index answers; later slices score every vector.
   */
  *nearest(query: Float32Array, first: number): Generator<{ seq: number; similarity: number }[]> {
    if (this.size === 0 || query.length !== this.#dim) return;
    const q = unit(query);
    const slice = (s: Scored, at: Iterable<number>) => Array.from(at, (j) => ({ seq: s.seqs[s.slots ? s.slots[j]! : j]!, similarity: s.sims[j]! }));
    // Scored in the scratch arrays: read up before the first yield, as another query may reuse them.
    const s = this.#score(q, this.#scratch);
    const top = slice(s, bestIndices(s.sims, s.count, Math.max(1, first), s.slots ? (j) => s.seqs[s.slots![j]!]! : (j) => s.seqs[j]!, this.#scratch));
    yield top;
    if (top.length >= this.size) return;
    // More were wanted (filters passed over many): order the rest, scored afresh over every
    // vector (the vectors may also have changed while the caller was away).
    const given = new Set(top.map((h) => h.seq));
    const all = this.#score(q, null);
    const rest = [...all.sims.keys()].filter((i) => !given.has(all.seqs[i]!)).sort((a, b) => all.sims[b]! - all.sims[a]! || all.seqs[a]! - all.seqs[b]!);
    for (let from = 0, size = top.length * 4; from < rest.length; from += size, size *= 4) yield slice(all, rest.slice(from, from + size));
  }

  #grow(rows: number): void {
    this.#rows!.reserve(rows);
    const scales = new Float32Array(rows);
    scales.set(this.#scales);
    const listOf = new Uint16Array(rows);
    listOf.set(this.#listOf);
    [this.#scales, this.#listOf] = [scales, listOf];
  }

  /** The i-th vector as stored (unit length, to within a byte per dimension). */
  #read(i: number, out: Float32Array): void {
    const codes = this.#rows!.row(i);
    for (let d = 0; d < this.#dim; d++) out[d] = codes[d]! * this.#scales[i]!;
  }

  /** The lists, learnt now if there are none yet or the vectors have doubled since; null below `approximateFrom`. */
  #currentLists(): VectorLists | null {
    if (!this.approximate) return null;
    if (!this.#lists || this.size >= 2 * this.#listsFor) {
      const lists = VectorLists.train(this.size, this.#dim, (i, out) => this.#read(i, out));
      const v = new Float32Array(this.#dim);
      for (let i = 0; i < this.size; i++) {
        this.#read(i, v);
        this.#listOf[i] = lists.assign(v);
      }
      [this.#lists, this.#listsFor] = [lists, this.size];
    }
    return this.#lists;
  }

  /**
   * Scores every vector, or (given scratch, once the index answers) those of the nearest lists;
   * given scratch, the answer's arrays are the scratch's.
   */
  #score(q: Float32Array, scratch: Scratch | null): Scored {
    const n = this.#seqs.length;
    const rows = this.#rows!;
    const scales = this.#scales;
    const lists = scratch ? this.#currentLists() : null;
    if (!lists) {
      const sims = scratch ? scratch.floats('sims', n) : new Float32Array(n);
      rows.dot(q, n, sims);
      for (let i = 0; i < n; i++) sims[i]! *= scales[i]!;
      return { slots: null, sims, count: n, seqs: this.#seqs };
    }
    const wanted = lists.nearestLists(q, this.index.probes);
    const listOf = this.#listOf;
    let slots = scratch!.ints(Math.ceil((n * this.index.probes) / LISTS) * 2 + 64);
    let count = 0;
    for (let i = 0; i < n; i++) {
      if (wanted[listOf[i]!] === 0) continue;
      if (count === slots.length) slots = scratch!.ints(count * 2, count);
      slots[count++] = i;
    }
    const sims = scratch!.floats('sims', count);
    rows.dot(q, count, sims, slots);
    for (let j = 0; j < count; j++) sims[j]! *= scales[slots[j]!]!;
    return { slots, sims, count, seqs: this.#seqs };
  }
}

/**
 * The nearest `q.limit` that are live and pass the filters, nearest first: slices of the
 * nearest go to the database (`liveAmong`, by seq) until enough pass. `liveAmong` answers in
 * the order of the seqs it was given, undefined for each that is not live or does not pass:
 * answered by seq in a map, building and reading it cost the semantic leg more.
 */
export async function nearestLive(
  vectors: ModelVectors,
  q: SemanticQuery,
  liveAmong: (seqs: number[]) => Promise<(CandidateColumns | undefined)[]>,
): Promise<SemanticHit[]> {
  const hits: SemanticHit[] = [];
  // Most of the nearest are live and pass: a quarter more than asked usually suffices, and each
  // seq read costs the database a row lookup.
  for (const slice of vectors.nearest(q.vector, Math.ceil(q.limit * 1.25) + 16)) {
    const found = await liveAmong(slice.map((s) => s.seq));
    for (let i = 0; i < slice.length && hits.length < q.limit; i++) {
      const row = found[i];
      if (row) hits.push(toCandidate(row, { similarity: slice[i]!.similarity }));
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
