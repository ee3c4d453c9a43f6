import { describe, expect, it } from 'vitest';
import { applyRows, bestIndices, ModelVectors, nearestLive, Scratch, SlotIndex } from './vector-memory.js';

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
    const values = Float32Array.from({ length: 5000 }, () => Math.round(next() * 300) / 7);
    const sorted = [...values.keys()].sort((a, b) => values[b]! - values[a]! || a - b);
    for (const k of [1, 10, 257, 4999, 5000, 6000]) expect(bestIndices(values, values.length, k, (j) => j)).toEqual(sorted.slice(0, k));
    // Ties broken by the seq the caller maps an index to, not by the index.
    expect(bestIndices(Float32Array.of(1, 2, 2, 2, 0), 5, 2, (j) => -j)).toEqual([3, 2]);
    for (const n of [1, 2, 3, 17, 100, 1000]) {
      for (const distinct of [2, 5, 1e9]) {
        const v = Float32Array.from({ length: n }, () => Math.floor(next() * distinct) - distinct / 2);
        const order = [...v.keys()].sort((a, b) => v[b]! - v[a]! || a - b);
        for (const k of [1, 2, Math.ceil(n / 2), n]) expect(bestIndices(v, n, k, (j) => j)).toEqual(order.slice(0, k));
      }
    }
    // Every value equal, and only part of the scores counted.
    expect(bestIndices(new Float32Array(1000).fill(0.5), 900, 3, (j) => j)).toEqual([0, 1, 2]);
  });

  it('selects the best k of many values exactly, whatever the sample of them guessed', () => {
    const next = random(11);
    const check = (v: Float32Array, k: number, seqOf: (j: number) => number = (j) => j) => {
      const order = [...v.keys()].sort((a, b) => v[b]! - v[a]! || seqOf(a) - seqOf(b));
      expect(bestIndices(v, v.length, k, seqOf)).toEqual(order.slice(0, k));
    };
    const n = 200_000;
    // Similarities as the semantic leg scores them, negative ones included; the seqs reversed.
    const sims = Float32Array.from({ length: n }, () => next() * 1.6 - 0.6);
    for (const k of [1, 141, 5000]) check(sims, k, (j) => n - j);
    // Where bestIndices samples (every n/256th value): the guess it reads there too high, so that
    // fewer than k reach it, then too low, so that every value does. Either way the answer is exact.
    const sampled = new Set(Array.from({ length: 256 }, (_, i) => Math.floor((i * n) / 256)));
    check(Float32Array.from({ length: n }, (_, j) => (sampled.has(j) ? 1 - j / n : next() * 0.5)), 141);
    check(Float32Array.from({ length: n }, (_, j) => (sampled.has(j) ? -1 : next())), 141);
    // Ties across the k-th place, -0 among them (equal to 0), broken by seq.
    const ties = Float32Array.from({ length: 5000 }, (_, j) => [0, -0, 0.25, -0.25][j % 4]!);
    for (const k of [1, 1250, 1251, 2600]) check(ties, k, (j) => (j * 7919) % 5000);
  });

  it('keeps slots by seq, densely while seqs are dense and in a map once one would leave the array mostly empty', () => {
    const next = random(3);
    const index = new SlotIndex();
    const model = new Map<number, number>();
    const check = () => {
      for (const [seq, slot] of model) expect(index.get(seq)).toBe(slot);
      for (const seq of [0, -1, 1.5, 10 ** 12, 99_999_999]) if (!model.has(seq)) expect(index.get(seq)).toBeUndefined();
    };
    for (let seq = 1; seq <= 200_000; seq++) {
      index.set(seq, seq * 2);
      model.set(seq, seq * 2);
      if (next() < 0.1) {
        const gone = 1 + Math.floor(next() * seq);
        index.delete(gone);
        model.delete(gone);
      }
    }
    check();
    // Far beyond the dense run, then odd keys: every entry is still found.
    for (const seq of [10 ** 12, 7, -3, 2.5]) {
      index.set(seq, 1);
      model.set(seq, 1);
    }
    check();
    index.delete(10 ** 12);
    model.delete(10 ** 12);
    check();
  });

  it('answers similarities within 0.01 of the exact cosine, nearest first by them, in growing slices that cover every vector once', () => {
    const next = random(11);
    const m = new ModelVectors();
    const vectors = new Map<number, number[]>();
    for (let seq = 1; seq <= 700; seq++) {
      const v = Array.from({ length: 16 }, () => next() - 0.5);
      vectors.set(seq, v);
      m.put(seq, v);
    }
    const q = Float32Array.from({ length: 16 }, () => next() - 0.5);
    const exact = [...vectors].map(([seq, v]) => ({ seq, similarity: cosine(v, q) })).sort((a, b) => b.similarity - a.similarity);
    const slices = [...m.nearest(q, 10)];
    expect(slices.map((s) => s.length)).toEqual([10, 40, 160, 490]);
    const all = slices.flat();
    expect(new Set(all.map((h) => h.seq)).size).toBe(700);
    for (const h of all) expect(Math.abs(h.similarity - cosine(vectors.get(h.seq)!, q))).toBeLessThan(0.01);
    for (let i = 1; i < all.length; i++) expect(all[i]!.similarity).toBeLessThanOrEqual(all[i - 1]!.similarity);
    // The first slice is the exact ten nearest, bar a swap at its edge.
    const top10 = new Set(exact.slice(0, 10).map((e) => e.seq));
    expect(slices[0]!.filter((h) => top10.has(h.seq)).length).toBeGreaterThanOrEqual(9);
  });

  it('nearestLive: asks the database about growing slices of the nearest until enough are live', async () => {
    const m = new ModelVectors();
    for (let seq = 1; seq <= 100; seq++) m.put(seq, [1, seq / 100, 0]);
    const asked: number[][] = [];
    const hits = await nearestLive(m, { live: { now: 0, disputeMinContradictions: 2 }, vector: Float32Array.of(1, 0, 0), model: 'm', limit: 3 }, async (seqs) => {
      asked.push(seqs);
      // Only the farthest ten are live.
      return seqs.map((seq) => (seq > 90 ? { seq, id: `id${seq}`, created_at: 0, verification_count: 0, contradiction_count: 0 } : undefined));
    });
    expect(hits.map((h) => h.id)).toEqual(['id91', 'id92', 'id93']);
    expect(hits[0]!.similarity).toBeCloseTo(cosine([1, 0.91, 0], [1, 0, 0]), 2);
    expect(asked.map((a) => a.length)).toEqual([20, 80]);
    expect(new Set(asked.flat()).size).toBe(100);
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

  it('from approximateFrom on, answers its first slice from the nearest lists: most of the exact ten, and vectors put later are found', () => {
    const next = random(5);
    const dim = 32;
    const centres = Array.from({ length: 40 }, () => Array.from({ length: dim }, () => next() - 0.5));
    const vectors = new Map<number, number[]>();
    const m = new ModelVectors({ approximateFrom: 2000, probes: 96 });
    for (let seq = 1; seq <= 8000; seq++) {
      const c = centres[seq % centres.length]!;
      const v = c.map((x) => x + (next() - 0.5) * 0.4);
      vectors.set(seq, v);
      m.put(seq, v);
    }
    expect(m.approximate).toBe(true);
    let found = 0;
    for (let k = 0; k < 30; k++) {
      const q = Float32Array.from(centres[k]!, (x) => x + (next() - 0.5) * 0.4);
      const exact = [...vectors].map(([seq, v]) => ({ seq, sim: cosine(v, q) })).sort((a, b) => b.sim - a.sim);
      const first = m.nearest(q, 266).next().value as { seq: number }[];
      // Fewer than every vector: the lists answered.
      expect(first.length).toBe(266);
      const reranked = new Set(first.map((h) => h.seq).sort((a, b) => cosine(vectors.get(b)!, q) - cosine(vectors.get(a)!, q)).slice(0, 10));
      found += exact.slice(0, 10).filter((e) => reranked.has(e.seq)).length;
    }
    expect(found / 300).toBeGreaterThanOrEqual(0.95);
    // A vector put after the lists were learnt goes to its list; a removed one leaves.
    const q = Float32Array.from({ length: dim }, () => next() - 0.5);
    m.put(9001, q);
    expect((m.nearest(q, 5).next().value as { seq: number }[])[0]!.seq).toBe(9001);
    m.remove(9001);
    expect((m.nearest(q, 5).next().value as { seq: number }[]).map((h) => h.seq)).not.toContain(9001);
  });

  it('answers each query alike when another query scores between its slices (they share scratch arrays), below and above approximateFrom', () => {
    for (const approximateFrom of [100_000, 500]) {
      const next = random(17);
      const m = new ModelVectors({ approximateFrom, probes: 96 });
      for (let seq = 1; seq <= 3000; seq++) m.put(seq, Array.from({ length: 24 }, () => next() - 0.5));
      const queries = Array.from({ length: 2 }, () => Float32Array.from({ length: 24 }, () => next() - 0.5));
      const alone = queries.map((q) => [...m.nearest(q, 10)].map((slice) => slice.map((h) => ({ ...h }))));
      // Interleaved: a slice of one walk, then one of the other, each slice kept as given.
      const walks = queries.map((q) => m.nearest(q, 10));
      const interleaved: { seq: number; similarity: number }[][][] = [[], []];
      for (let open = true; open; ) {
        open = false;
        walks.forEach((w, i) => {
          const step = w.next();
          if (step.done) return;
          interleaved[i]!.push(step.value);
          open = true;
        });
      }
      expect(interleaved).toEqual(alone);
      expect(alone[0]![0]).not.toEqual(alone[1]![0]);
    }
  });

  it('scratch arrays: views of the length asked, grown as needed, keeping the values asked to keep', () => {
    const scratch = new Scratch();
    const a = scratch.ints(4);
    a.set([1, 2, 3, 4]);
    expect(scratch.ints(2)).toEqual(Int32Array.of(1, 2));
    const grown = scratch.ints(10_000, 3);
    expect(grown.length).toBe(10_000);
    expect([...grown.subarray(0, 3)]).toEqual([1, 2, 3]);
    expect(scratch.floats('x', 5).length).toBe(5);
    scratch.floats('x', 5).fill(7);
    // Names are apart: another name's array does not hold x's values.
    expect([...scratch.floats('y', 5)]).toEqual([0, 0, 0, 0, 0]);
    expect([...scratch.floats('x', 5)]).toEqual([7, 7, 7, 7, 7]);
  });
});
