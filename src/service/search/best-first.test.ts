import { describe, expect, it } from 'vitest';
import { bestFirst } from './best-first.js';

interface Item {
  score: number;
  id: string;
}
const before = (a: Item, b: Item) => b.score - a.score || (a.id < b.id ? -1 : 1);

/** Deterministic items: scores with many ties (broken by id), ids unique. */
function items(n: number, seed: number): Item[] {
  let x = seed >>> 0;
  const next = () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  return Array.from({ length: n }, (_, i) => ({ score: Math.floor(next() * 20) / 4, id: `${Math.floor(next() * 1e9)}-${i}` }));
}

describe('bestFirst', () => {
  it('answers every slice as a full sort would, within the first k and past them', () => {
    for (const [n, k] of [
      [0, 10],
      [1, 10],
      [9, 10],
      [10, 10],
      [183, 10],
      [183, 1],
      [50, 0],
    ] as const) {
      const all = items(n, n * 31 + k);
      const sorted = [...all].sort(before);
      const take = bestFirst(all, k, before);
      for (const [from, to] of [
        [0, k],
        [0, 3],
        [2, k],
        [k, k + 7],
        [0, n],
        [n - 1, n + 5],
      ]) {
        const [f, t] = [Math.max(0, from!), Math.max(0, to!)];
        expect(take(f, t), `${n} items, first ${k}, slice ${f}-${t}`).toEqual(sorted.slice(f, t));
      }
    }
  });

  it('leaves the items as given', () => {
    const all = items(40, 7);
    const copy = [...all];
    bestFirst(all, 5, before)(0, 40);
    expect(all).toEqual(copy);
  });
});
