import { describe, expect, it } from 'vitest';
import { CodeRows } from './int8-dot.js';

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const exactDot = (codes: Int8Array, q: Float32Array) => codes.reduce((sum, c, d) => sum + c * q[d]!, 0);

describe('byte codes in WebAssembly memory', () => {
  it('answers each row’s dot product with a unit query to within 1e-4 of its bytes’ scale, at any dimension', () => {
    const next = random(5);
    for (const dim of [1, 7, 8, 13, 64, 384, 1536]) {
      const rows = new CodeRows(dim);
      const n = 300;
      rows.reserve(n);
      for (let i = 0; i < n; i++) rows.row(i).set(Int8Array.from({ length: dim }, () => Math.round(next() * 254 - 127)));
      const raw = Float32Array.from({ length: dim }, () => next() - 0.5);
      const norm = Math.hypot(...raw);
      const q = raw.map((x) => x / norm);
      const out = new Float32Array(n);
      rows.dot(q, n, out);
      // A similarity is the product times the row's scale (max |component| / 127 ≤ 1/127).
      for (let i = 0; i < n; i++) expect(Math.abs(out[i]! - exactDot(rows.row(i), q)) / 127).toBeLessThan(1e-4);
      // Chosen rows, in the order given.
      const slots = Int32Array.from([n - 1, 0, 17, 17]);
      const picked = new Float32Array(4);
      rows.dot(q, 4, picked, slots);
      expect(Array.from(picked)).toEqual(Array.from(slots, (s) => out[s]));
    }
  });

  it('never overflows: every byte at its extreme against the widest query', () => {
    const dim = 4096;
    const rows = new CodeRows(dim);
    rows.reserve(2);
    rows.row(0).fill(127);
    rows.row(1).fill(-128);
    const q = new Float32Array(dim).fill(1 / Math.sqrt(dim));
    const out = new Float32Array(2);
    rows.dot(q, 2, out);
    expect(out[0]! / (127 * dim * q[0]!)).toBeCloseTo(1, 3);
    expect(out[1]! / (-128 * dim * q[0]!)).toBeCloseTo(1, 3);
  });

  it('answers exactly after scratch of earlier calls lies where new rows are (dimensions not a multiple of 8)', () => {
    const rows = new CodeRows(13);
    rows.reserve(1024);
    for (let i = 0; i < 1024; i++) rows.row(i).fill(-5);
    const q = Float32Array.from({ length: 13 }, (_, d) => (d % 3) / 10);
    // A call over many chosen rows leaves its query, sums and slots past the codes, where the
    // next rows and the next query will lie.
    rows.dot(Float32Array.from({ length: 13 }, () => -0.2), 8000, new Float32Array(8000), Int32Array.from({ length: 8000 }, (_, j) => j % 1024));
    rows.reserve(2048);
    for (let i = 1024; i < 2048; i++) rows.row(i).fill(i % 7);
    const out = new Float32Array(2048);
    rows.dot(q, 2048, out);
    for (let i = 1024; i < 2048; i++) expect(out[i]).toBeCloseTo(exactDot(rows.row(i), q), 2);
  });

  it('keeps the rows while they grow, moves one over another, and answers 0 for a zero query', () => {
    const rows = new CodeRows(16);
    rows.reserve(3);
    for (let i = 0; i < 3; i++) rows.row(i).fill(i + 1);
    rows.reserve(100_000);
    expect([rows.row(0)[5], rows.row(1)[15], rows.row(2)[0]]).toEqual([1, 2, 3]);
    rows.move(2, 0);
    expect(Array.from(rows.row(0))).toEqual(new Array(16).fill(3));
    const out = new Float32Array(3).fill(9);
    rows.dot(new Float32Array(16), 3, out);
    expect(Array.from(out)).toEqual([0, 0, 0]);
  });
});
