import { describe, expect, it } from 'vitest';
import { RecentKeys } from './recent-keys.js';

describe('recent keys (the doorkeeper of kept search legs)', () => {
  it('says a key was seen only once it was asked for, and keeps saying so', () => {
    const keys = new RecentKeys();
    expect(keys.seenBefore('lexical-leg ["pool","exhausted"]')).toBe(false);
    expect(keys.seenBefore('lexical-leg ["pool","exhausted"]')).toBe(true);
    expect(keys.seenBefore('lexical-leg ["pool","exhausted"]')).toBe(true);
    expect(keys.seenBefore('lexical-leg ["exhausted","pool"]')).toBe(false);
  });

  it('takes few unseen keys for seen while it remembers up to its capacity, then forgets them all', () => {
    const keys = new RecentKeys();
    const capacity = 2 ** 17;
    let wrongly = 0;
    for (let i = 0; i < capacity; i++) if (keys.seenBefore(`key ${i}`)) wrongly++;
    // Each unseen key finds its bit set with the chance of the bits set so far (up to an eighth):
    // about 6% over the whole run.
    expect(wrongly / capacity).toBeLessThan(0.08);
    const remembered = Array.from({ length: 1000 }, (_, i) => `key ${capacity - 1 - i}`);
    expect(remembered.every((k) => keys.seenBefore(k))).toBe(true);
    // As many new keys again: their marks reach the capacity, and everything is forgotten once.
    for (let i = 0; i < capacity; i++) keys.seenBefore(`other ${i}`);
    const first = Array.from({ length: 1000 }, (_, i) => `key ${i}`);
    expect(first.filter((k) => keys.seenBefore(k)).length).toBeLessThan(200);
  });
});
