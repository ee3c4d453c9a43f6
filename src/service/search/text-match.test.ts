import { describe, expect, it } from 'vitest';
import { codePoints } from '../../domain/text.js';
import { fold, matchTier, queryTerms, snippet } from './text-match.js';

describe('queryTerms', () => {
  it('splits on punctuation, lowercases, strips diacritics, de-duplicates', () => {
    expect(queryTerms('SQLITE_BUSY: database is locked (Café) café')).toEqual(['sqlite', 'busy', 'database', 'is', 'locked', 'cafe']);
    expect(queryTerms('☃☃ !!')).toEqual([]);
  });
});

describe('matchTier', () => {
  const q = 'SQLITE_BUSY: database is locked';
  it('2 for the verbatim query among phrase hits, punctuation and all', () => {
    expect(matchTier(fold(q), { allTerms: true, phrase: true }, '', 'got SQLITE_BUSY: database  is locked today')).toBe(2);
    expect(matchTier(fold(q), { allTerms: true, phrase: true }, 'sqlite_busy: Database is locked', 'x')).toBe(2);
  });
  it('1 for all terms, including a phrase hit whose punctuation differs', () => {
    expect(matchTier(fold(q), { allTerms: true, phrase: true }, '', 'SQLITE BUSY database is locked')).toBe(1);
    expect(matchTier(fold(q), { allTerms: true, phrase: false }, '', 'database sqlite is busy and locked')).toBe(1);
  });
  it('0 otherwise', () => {
    expect(matchTier(fold(q), { allTerms: false, phrase: false }, '', 'database is fine')).toBe(0);
  });
});

describe('snippet', () => {
  const long = `${'intro '.repeat(100)}the ECONNRESET error appears here ${'tail '.repeat(100)}`;
  it('returns short content whole', () => {
    expect(snippet('short text', 'x', 240)).toBe('short text');
  });
  it('centres on the match, stays within the limit and marks cuts', () => {
    const s = snippet(long, 'ECONNRESET', 240);
    expect(s).toContain('ECONNRESET');
    expect(codePoints(s)).toBeLessThanOrEqual(240);
    expect(s.startsWith('…')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
  });
  it('starts at the beginning when nothing matches', () => {
    const s = snippet(long, 'zzz', 240);
    expect(s.startsWith('intro')).toBe(true);
    expect(codePoints(s)).toBeLessThanOrEqual(240);
  });
  it('counts emoji as one character each', () => {
    const s = snippet('😀'.repeat(500), '😀', 240);
    expect(codePoints(s)).toBeLessThanOrEqual(240);
  });
  it('cuts the same window whether a text is plain or holds characters beyond one UTF-16 unit', () => {
    // The same text with a character that is two units (😀) or lengthens when lowercased (İ) in
    // place of one that is not: the cut is the same characters.
    const base = `${'word '.repeat(60)}X the ECONNRESET error ${'tail '.repeat(60)}`;
    for (const at of [0, 100, 310, base.length - 1]) {
      for (const wide of ['😀', 'İ']) {
        const plain = snippet(base.slice(0, at) + 'Q' + base.slice(at + 1), 'econnreset', 80);
        const other = snippet(base.slice(0, at) + wide + base.slice(at + 1), 'econnreset', 80);
        expect(other).toBe(plain.replace('Q', wide));
        expect(codePoints(other)).toBeLessThanOrEqual(80);
      }
    }
  });
});
