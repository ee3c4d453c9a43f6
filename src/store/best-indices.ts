/** Selecting the highest of many similarities without ordering the rest, in arrays kept from one query to the next. */

/** Arrays reused from call to call, each of at least the length asked (views of that length). */
export class Scratch {
  readonly #floats = new Map<string, Float32Array>();
  #ints = new Int32Array(0);

  floats(name: string, length: number): Float32Array {
    let a = this.#floats.get(name);
    if (!a || a.length < length) this.#floats.set(name, (a = new Float32Array(grown(length))));
    return a.subarray(0, length);
  }

  /** Growing, keeps the first `kept` values. */
  ints(length: number, kept = 0): Int32Array {
    if (this.#ints.length < length) {
      const old = this.#ints;
      this.#ints = new Int32Array(grown(length));
      this.#ints.set(old.subarray(0, kept));
    }
    return this.#ints.subarray(0, length);
  }
}

/** A little over what is asked, so that a board growing by a few vectors does not reallocate at every query. */
const grown = (length: number) => Math.ceil(length * 1.125) + 64;

/**
 * The `k` highest of `sims[0..count)`, highest first, ties by `seqOf` ascending. A sample of the
 * values gives a floor that about 4k of them reach, one pass takes those, the k-th highest of
 * theirs is selected (quickselect), and only what reaches it is ordered (byRank). A floor that
 * fewer than k reach (the sample guessed high) gives way to the exact k-th highest of all, on a
 * scratch copy. Why not select exactly and sort with a comparator: docs/performance.md.
 */
export function bestIndices(sims: Float32Array, count: number, k: number, seqOf: (j: number) => number, scratch?: Scratch): number[] {
  if (k <= 0 || count <= 0) return [];
  let picked = k >= count ? reaching(sims, count, -Infinity) : count > SAMPLE_FROM ? reaching(sims, count, sampledFloor(sims, count, k)) : [];
  if (picked.length < Math.min(k, count)) {
    const copy = scratch ? scratch.floats('selection', count) : new Float32Array(count);
    copy.set(sims.subarray(0, count));
    picked = reaching(sims, count, kthHighest(copy, Math.min(k, count)));
  } else if (picked.length > 2 * k) {
    // Many reached the guess: the k-th highest of theirs, exactly, before ordering any.
    const values = new Float32Array(picked.length);
    for (let i = 0; i < picked.length; i++) values[i] = sims[picked[i]!]!;
    const floor = kthHighest(values, k);
    picked = picked.filter((j) => sims[j]! >= floor);
  }
  const ranked = byRank(picked, sims, seqOf);
  // Values equal to the floor may have taken more than k places.
  if (ranked.length > k) ranked.length = k;
  return ranked;
}

/** The indices of the first `count` values that reach `floor`. */
function reaching(sims: Float32Array, count: number, floor: number): number[] {
  const picked: number[] = [];
  for (let j = 0; j < count; j++) if (sims[j]! >= floor) picked.push(j);
  return picked;
}

/** Below this many values, the k-th highest is selected exactly at once. */
const SAMPLE_FROM = 1024;
/** Values sampled to guess a floor. */
const SAMPLED = 256;

/**
 * A value that a few times k of the first `count` reach, read off a sample: the sampled value
 * that enough sampled ones reach for about 4k of all to, but at least two (fewer than k of all
 * reach it about once in a hundred calls or less).
 */
function sampledFloor(sims: Float32Array, count: number, k: number): number {
  const sample = new Float32Array(SAMPLED);
  const stride = count / SAMPLED;
  for (let i = 0; i < SAMPLED; i++) sample[i] = sims[Math.floor(i * stride)]!;
  const reach = Math.min(SAMPLED, 1 + Math.max(1, Math.ceil((4 * k * SAMPLED) / count)));
  return kthHighest(sample, reach);
}

/** Positions below this fit beside a value's 32 bits in a double's 53. */
const POSITIONS = 2 ** 21;
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * `picked` ordered highest value first, ties by seq ascending. Each is keyed by its value's
 * bits (made to sort as the value does) and its place in `picked`, and the keys sorted as
 * numbers, without a comparator (far slower: docs/performance.md); only runs of equal values
 * are then ordered by seq.
 */
function byRank(picked: number[], sims: Float32Array, seqOf: (j: number) => number): number[] {
  const n = picked.length;
  if (n >= POSITIONS) return picked.sort((a, b) => sims[b]! - sims[a]! || seqOf(a) - seqOf(b));
  const keys = new Float64Array(n);
  for (let p = 0; p < n; p++) {
    // +0 for -0, which compares equal to it.
    f32[0] = sims[picked[p]!]! + 0;
    const bits = u32[0]!;
    // Negative floats sort backwards by their bits: flipped whole; positive ones above them.
    const ordered = bits & 0x80000000 ? ~bits >>> 0 : (bits | 0x80000000) >>> 0;
    keys[p] = (0xffffffff - ordered) * POSITIONS + p;
  }
  keys.sort();
  const ranked = new Array<number>(n);
  for (let i = 0; i < n; i++) ranked[i] = picked[keys[i]! % POSITIONS]!;
  for (let from = 0; from < n; ) {
    let to = from + 1;
    while (to < n && Math.floor(keys[to]! / POSITIONS) === Math.floor(keys[from]! / POSITIONS)) to++;
    if (to - from > 1) {
      const run = ranked.slice(from, to).sort((a, b) => seqOf(a) - seqOf(b));
      for (let i = from; i < to; i++) ranked[i] = run[i - from]!;
    }
    from = to;
  }
  return ranked;
}

/** The k-th highest value (1 ≤ k ≤ length) of `a`, which it reorders: quickselect, falling back to a sort. */
function kthHighest(a: Float32Array, k: number): number {
  const target = a.length - k;
  let lo = 0;
  let hi = a.length - 1;
  // Enough rounds for any reasonable input; a pathological one is sorted instead.
  for (let rounds = 4 * Math.ceil(Math.log2(a.length + 1)); lo < hi && rounds > 0; rounds--) {
    const mid = (lo + hi) >> 1;
    // Median of three as the pivot.
    const [x, y, z] = [a[lo]!, a[mid]!, a[hi]!];
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i++] = a[j]!;
        a[j--] = t;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return a[target]!;
  }
  if (lo < hi) a.subarray(lo, hi + 1).sort();
  return a[target]!;
}
