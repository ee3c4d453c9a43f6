import { describe, expect, it } from 'vitest';
import { canonicalText, codePoints, deriveTitle } from './text.js';

describe('deriveTitle', () => {
  it('takes the first non-empty line as it is when short', () => {
    expect(deriveTitle('\n\n  First line here  \nsecond')).toBe('First line here');
  });
  it('cuts at a word boundary to at most 120 code points with a trailing ellipsis', () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const t = deriveTitle(words);
    expect(codePoints(t)).toBeLessThanOrEqual(120);
    expect(t.endsWith('…')).toBe(true);
    expect(words.startsWith(t.slice(0, -1))).toBe(true);
    expect(t.slice(0, -1).endsWith(' ')).toBe(false);
    expect(words.charAt(t.length - 1)).toBe(' ');
  });
  it('cuts an unbroken run hard and counts code points, not UTF-16 units', () => {
    const t = deriveTitle('😀'.repeat(300));
    expect(codePoints(t)).toBe(120);
    expect(t.endsWith('…')).toBe(true);
  });
});

describe('canonicalText', () => {
  it('NFC-normalises, collapses whitespace and trims', () => {
    expect(canonicalText(' e\u0301  a\n\tb ')).toBe('é a b');
  });
});
