/**
 * The approximate index of the vectors held in memory (vector-memory.ts): an inverted file.
 * Vectors are split into COARSE × FINE lists by two levels of spherical k-means (each coarse
 * cluster split again), so assigning a vector costs COARSE + FINE dot products instead of one
 * per list. A query scores only the vectors of the lists whose centres are nearest to it.
 */

const COARSE = 16;
const FINE = 16;
/** How many lists the index has. */
export const LISTS = COARSE * FINE;
/** Sampled vectors per centre a k-means run learns from, and its rounds. */
const SAMPLE_PER_CENTRE = 128;
const ROUNDS = 8;

/** A deterministic pseudo-random sequence: the same vectors build the same index. */
function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function dot(a: Float32Array, aOff: number, b: Float32Array, bOff: number, dim: number): number {
  let s = 0;
  for (let d = 0; d < dim; d++) s += a[aOff + d]! * b[bOff + d]!;
  return s;
}

/** The centre (of `k` in `centres`) nearest to `v`. */
function nearestCentre(centres: Float32Array, from: number, k: number, v: Float32Array, dim: number): number {
  let best = 0;
  let bestSim = -Infinity;
  for (let c = 0; c < k; c++) {
    const sim = dot(centres, (from + c) * dim, v, 0, dim);
    if (sim > bestSim) [best, bestSim] = [c, sim];
  }
  return best;
}

/** Spherical k-means over `points` (m unit vectors): `k` unit centres. */
function kmeans(points: Float32Array, m: number, k: number, dim: number, next: () => number): Float32Array {
  const centres = new Float32Array(k * dim);
  for (let c = 0; c < k; c++) {
    const i = Math.floor(next() * m);
    centres.set(points.subarray(i * dim, i * dim + dim), c * dim);
  }
  const sums = new Float64Array(k * dim);
  const counts = new Uint32Array(k);
  for (let round = 0; round < ROUNDS; round++) {
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < m; i++) {
      const c = nearestCentre(centres, 0, k, points.subarray(i * dim, i * dim + dim), dim);
      counts[c]!++;
      for (let d = 0; d < dim; d++) sums[c * dim + d]! += points[i * dim + d]!;
    }
    for (let c = 0; c < k; c++) {
      // An empty cluster keeps its centre.
      if (counts[c] === 0) continue;
      let norm = 0;
      for (let d = 0; d < dim; d++) norm += sums[c * dim + d]! ** 2;
      const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      for (let d = 0; d < dim; d++) centres[c * dim + d] = sums[c * dim + d]! * scale;
    }
  }
  return centres;
}

export class VectorLists {
  private constructor(
    private readonly dim: number,
    private readonly coarse: Float32Array,
    private readonly fine: Float32Array,
  ) {}

  /**
   * Learns the lists from `n` vectors (`read(i, out)` writes the i-th, of unit length), sampling
   * so that the cost grows with the lists, not with `n`.
   */
  static train(n: number, dim: number, read: (i: number, out: Float32Array) => void): VectorLists {
    const next = random(n);
    /** `m` vectors drawn by `pick`, one after another. */
    const sample = (pick: () => number, m: number) => {
      const points = new Float32Array(m * dim);
      for (let j = 0; j < m; j++) read(pick(), points.subarray(j * dim, j * dim + dim));
      return points;
    };
    const m = Math.min(n, COARSE * SAMPLE_PER_CENTRE);
    const coarse = kmeans(sample(() => Math.floor(next() * n), m), m, COARSE, dim, next);
    // Each coarse cluster's members, from a sample, split into FINE lists.
    const v = new Float32Array(dim);
    const members: number[][] = Array.from({ length: COARSE }, () => []);
    const drawn = Math.min(n, LISTS * SAMPLE_PER_CENTRE);
    for (let j = 0; j < drawn; j++) {
      const i = drawn === n ? j : Math.floor(next() * n);
      read(i, v);
      members[nearestCentre(coarse, 0, COARSE, v, dim)]!.push(i);
    }
    const fine = new Float32Array(LISTS * dim);
    members.forEach((slots, c) => {
      if (slots.length === 0) {
        // No sampled member: its lists take the coarse centre (and stay nearly empty).
        for (let f = 0; f < FINE; f++) fine.set(coarse.subarray(c * dim, c * dim + dim), (c * FINE + f) * dim);
        return;
      }
      let j = 0;
      fine.set(kmeans(sample(() => slots[j++]!, slots.length), slots.length, FINE, dim, next), c * FINE * dim);
    });
    return new VectorLists(dim, coarse, fine);
  }

  /** The list of a unit vector. */
  assign(v: Float32Array): number {
    const c = nearestCentre(this.coarse, 0, COARSE, v, this.dim);
    return c * FINE + nearestCentre(this.fine, c * FINE, FINE, v, this.dim);
  }

  /** Flags the `probes` lists whose centres are nearest to the unit query. */
  nearestLists(q: Float32Array, probes: number): Uint8Array {
    const sims = Array.from({ length: LISTS }, (_, l) => dot(this.fine, l * this.dim, q, 0, this.dim));
    const order = sims.map((_, l) => l).sort((a, b) => sims[b]! - sims[a]!);
    const flags = new Uint8Array(LISTS);
    for (const l of order.slice(0, probes)) flags[l] = 1;
    return flags;
  }
}
