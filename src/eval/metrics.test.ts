import { describe, expect, it } from 'vitest';
import { ndcgAt10, recallAt5, reciprocalRank } from './metrics.js';

const rel = { a: 3, b: 2, c: 1 };

describe('eval metrics', () => {
  it('nDCG@10 is 1 for the ideal order and lower otherwise', () => {
    expect(ndcgAt10(['a', 'b', 'c'], rel)).toBeCloseTo(1, 10);
    // Ideal DCG = 7/1 + 3/log2(3) + 1/2; got = 0 + 7/log2(3) + 3/2 (x, a, b).
    const ideal = 7 + 3 / Math.log2(3) + 0.5;
    expect(ndcgAt10(['x', 'a', 'b'], rel)).toBeCloseTo((7 / Math.log2(3) + 1.5) / ideal, 10);
    expect(ndcgAt10(['x', 'y'], rel)).toBe(0);
  });
  it('counts only the first ten results for nDCG and MRR', () => {
    const eleven = [...'0123456789'.split(''), 'a'];
    expect(ndcgAt10(eleven, rel)).toBe(0);
    expect(reciprocalRank(eleven, rel)).toBe(0);
  });
  it('MRR takes the first result graded 2 or more', () => {
    expect(reciprocalRank(['c', 'x', 'b', 'a'], rel)).toBeCloseTo(1 / 3, 10);
  });
  it('recall@5 divides by min(5, judged)', () => {
    expect(recallAt5(['a', 'x', 'c'], rel)).toBeCloseTo(2 / 3, 10);
    const many = Object.fromEntries('abcdefg'.split('').map((k) => [k, 1]));
    expect(recallAt5(['a', 'b', 'x', 'y', 'z', 'c'], many)).toBeCloseTo(2 / 5, 10);
  });
});
