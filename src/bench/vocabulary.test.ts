import { describe, expect, it } from 'vitest';
import { sentence, VOCABULARY } from './vocabulary.js';

describe('bench sentences', () => {
  const corpus = Array.from({ length: 4000 }, (_, i) => sentence(i).split(' '));

  it('are the same for the same seed, and 12–30 vocabulary words long', () => {
    expect(sentence(42)).toBe(sentence(42));
    expect(sentence(42)).not.toBe(sentence(43));
    const lengths = new Set(corpus.map((s) => s.length));
    expect(Math.min(...lengths)).toBe(12);
    expect(Math.max(...lengths)).toBe(30);
    expect(corpus.flat().every((w) => VOCABULARY.includes(w))).toBe(true);
  });

  it('use every word, in most of the possible pairs (as a seeded bench corpus of 4,000 is)', () => {
    const words = new Set(corpus.flat());
    const pairs = new Set(corpus.flatMap((s) => s.slice(1).map((w, i) => `${s[i]} ${w}`)));
    expect(words.size).toBe(VOCABULARY.length);
    // About 80,000 adjacent pairs drawn from 144 × 144: nearly all of them occur, where the
    // generator's low bits gave 1,296.
    expect(pairs.size).toBeGreaterThan(0.9 * VOCABULARY.length ** 2);
  });
});
