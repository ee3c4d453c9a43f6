import { describe, expect, it } from 'vitest';
import { canonicalText, codePoints, collapseSpace, deriveTitle, nfc } from './text.js';

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
  it('splits lines at CRLF, CR and LF alike, skips blank ones and normalises only what it takes', () => {
    expect(deriveTitle(' \r\n\t\r\r\n  Cafe\u0301  au\u00a0lait \r\nnext')).toBe('Café au lait');
    expect(deriveTitle('\r\n \n\r')).toBe('');
    expect(deriveTitle('')).toBe('');
  });
  it('counts a code point made of two units once when cutting at a word boundary', () => {
    const line = `${'😀 '.repeat(50)}${'x'.repeat(100)}`;
    const t = deriveTitle(line);
    expect(codePoints(t)).toBe(100);
    expect(t).toBe(`${'😀 '.repeat(49)}😀…`);
  });
  it('cuts an unbroken run hard and counts code points, not UTF-16 units', () => {
    const t = deriveTitle('😀'.repeat(300));
    expect(codePoints(t)).toBe(120);
    expect(t.endsWith('…')).toBe(true);
  });
});

describe('collapseSpace', () => {
  it('answers text whose every space is single as it is', () => {
    expect(collapseSpace(' a b ')).toBe(' a b ');
  });
  it('collapses each run of any whitespace to one space', () => {
    expect(collapseSpace('a  b\tc\n\nd\u00a0e\u2028f \r\n g')).toBe('a b c d e f g');
  });
});

describe('canonicalText', () => {
  it('NFC-normalises, collapses whitespace and trims', () => {
    expect(canonicalText(' e\u0301  a\n\tb ')).toBe('é a b');
  });
});

describe('nfc', () => {
  it('answers what String.prototype.normalize does, ASCII or not', () => {
    const texts = ['', 'plain ASCII, with \t tabs\nand \x00 controls ~', 'cafe\u0301', 'caf\u00e9', 'A\u030A\u0301 \u212B', '\uD800 lone', '😀 e\u0301', 'ｆｕｌｌ width', '\x7f\x80'];
    for (const t of texts) expect(nfc(t)).toBe(t.normalize('NFC'));
    expect(nfc('cafe\u0301')).toBe('caf\u00e9');
  });
});
