import { describe, expect, it } from 'vitest';
import { applyRows, ModelVectors, topIndices } from './vector-memory.js';

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
};

describe('vector memory', () => {
  it('selects the same best k as a full sort, ties by index order', () => {
    const next = random(7);
    const values = Array.from({ length: 5000 }, () => Math.round(next() * 300));
    const better = (a: number, b: number) => values[a]! > values[b]! || (values[a] === values[b] && a < b);
    const sorted = values.map((_, i) => i).sort((a, b) => values[b]! - values[a]! || a - b);
    for (const k of [1, 10, 257, 4999, 5000, 6000]) expect(topIndices(values.length, k, better)).toEqual(sorted.slice(0, k));
  });

  it('answers exact cosine similarities, nearest first, in growing slices that cover every vector once', () => {
    const next = random(11);
    const m = new ModelVectors();
    const vectors = new Map<number, number[]>();
    for (let seq = 1; seq <= 700; seq++) {
      const v = Array.from({ length: 16 }, () => next() - 0.5);
      vectors.set(seq, v);
      m.put(seq, v);
    }
    const q = Float32Array.from({ length: 16 }, () => next() - 0.5);
    const expected = [...vectors].map(([seq, v]) => ({ seq, similarity: cosine(v, q) })).sort((a, b) => b.similarity - a.similarity);
    const slices = [...m.nearest(q, 10)];
    expect(slices.map((s) => s.length)).toEqual([10, 40, 160, 490]);
    const all = slices.flat();
    expect(all.map((h) => h.seq)).toEqual(expected.map((e) => e.seq));
    all.forEach((h, i) => expect(h.similarity).toBeCloseTo(expected[i]!.similarity, 5));
  });

  it('scores afresh for later slices when the vectors changed in between, never repeating a seq', () => {
    const m = new ModelVectors();
    for (let seq = 1; seq <= 5; seq++) m.put(seq, [1, seq / 10]);
    const walk = m.nearest(Float32Array.of(1, 0), 2);
    const first = (walk.next().value as { seq: number }[]).map((h) => h.seq);
    expect(first).toEqual([1, 2]);
    // While the caller was away: seq 5 now points the query's way, seq 3 is gone.
    m.put(5, [1, 0]);
    m.remove(3);
    const rest = [...walk].flat().map((h) => h.seq);
    expect(rest).toEqual([5, 4]);
  });

  it('leaves out vectors of another dimension, and answers nothing for a query of another dimension', () => {
    const m = new ModelVectors();
    m.put(1, [1, 0]);
    m.put(2, [1, 0, 0]);
    expect(m.size).toBe(1);
    expect([...m.nearest(Float32Array.of(1, 0, 0), 5)]).toEqual([]);
  });

  it('applies changed rows: a vector to its own model only, and away from every model when its row is gone', () => {
    const a = new ModelVectors();
    const b = new ModelVectors();
    a.put(1, [1, 0]);
    a.put(2, [0, 1]);
    b.put(3, [1, 0]);
    applyRows(
      [
        ['a', a],
        ['b', b],
      ],
      [1, 2, 3],
      [{ seq: 2, model: 'b', embedding: [1, 1] }, { seq: 3, model: 'b', embedding: [0, 1] }],
    );
    expect([...a.nearest(Float32Array.of(1, 0), 5)].flat()).toEqual([]);
    expect([...b.nearest(Float32Array.of(0, 1), 5)].flat().map((h) => h.seq)).toEqual([3, 2]);
  });
});
