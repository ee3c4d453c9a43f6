/**
 * Text rules shared by validation, titles and dedupe. "Characters" are Unicode code points
 * after NFC normalisation (docs/decisions.md).
 */
/** Text of ASCII characters only: NFC leaves it as it is (not so PLAIN's punctuation below: U+2000 composes to U+2002). */
const ASCII = /^[\x00-\x7f]*$/;

/** NFC; ASCII text is its own NFC, and testing for it costs a third of normalising (ICU copies). */
export const nfc = (s: string): string => (ASCII.test(s) ? s : s.normalize('NFC'));

/** Length in code points of the NFC form. */
export const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of nfc(s)) n++;
  return n;
};

/** Whitespace other than a space, or two spaces: what collapsing would change. */
const LOOSE_SPACE = /[^\S ]| {2}/;

/** Runs of whitespace collapsed to one space. Testing first costs a third of replacing text that has none. */
export const collapseSpace = (s: string): string => (LOOSE_SPACE.test(s) ? s.replace(/\s+/gu, ' ') : s);

/** NFC, runs of whitespace collapsed to one space, ends trimmed: the form dedupe compares. */
export const canonicalText = (s: string): string => collapseSpace(nfc(s)).trim();

export const ELLIPSIS = '…';

/** A UTF-16 surrogate: text without one has a unit per code point. */
export const SURROGATE = /[\uD800-\uDFFF]/;

/** ASCII, and the General Punctuation block (dashes, quotes, the ellipsis: no letters or digits). */
const PLAIN = /^[\x00-\x7f\u2000-\u206f]*$/;

/** Text whose words are its runs of ASCII letters and digits, lowercased: no normalisation changes them. */
export const isPlainText = (s: string): boolean => PLAIN.test(s);

/**
 * The words of a text as the full-text tokenizer sees them (unicode61, diacritics removed):
 * runs of letters and digits, lowercased, in order. ASCII text with punctuation, the common
 * case, skips the Unicode normalisation, which gives it the same words.
 */
export function words(s: string): string[] {
  const parts = isPlainText(s) ? s.toLowerCase().split(/[^a-z0-9]+/) : s.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().split(/[^\p{L}\p{N}]+/u);
  // Separators split runs, so only the ends can be empty.
  if (parts[parts.length - 1] === '') parts.pop();
  if (parts[0] === '') parts.shift();
  return parts;
}

/** At most `max` code points: cut, with a trailing `…`, when longer. */
export function clipChars(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : chars.slice(0, max - 1).join('') + ELLIPSIS;
}

/** The first line (between CR, LF or CRLF) holding anything but white space. */
const FIRST_FILLED_LINE = /[^\r\n]*\S[^\r\n]*/u;

/**
 * A title from content: its first non-empty line, cut at a word boundary so that the result,
 * with a trailing `…` when cut, is at most `max` code points. That line alone is normalised:
 * normalisation never joins or moves characters across a line break, nor turns white space
 * into anything else or back, so it is the first non-empty line of the normalised content.
 */
export function deriveTitle(content: string, max = 120): string {
  const firstLine = collapseSpace(nfc(FIRST_FILLED_LINE.exec(content)?.[0] ?? '')).trim();
  // Code points never outnumber UTF-16 units: a line short in units is short enough.
  if (firstLine.length <= max) return firstLine;
  // Without surrogates each code point is one unit: the line is its own list of code points.
  const chars = SURROGATE.test(firstLine) ? [...firstLine] : firstLine;
  if (chars.length <= max) return firstLine;
  const budget = chars.slice(0, max - 1);
  let cut = budget.length;
  // Prefer the last space inside the budget, unless that would leave almost nothing.
  const lastSpace = budget.lastIndexOf(' ');
  if (lastSpace >= Math.floor((max - 1) / 2)) cut = lastSpace;
  const kept = budget.slice(0, cut);
  return (typeof kept === 'string' ? kept : kept.join('')).trimEnd() + ELLIPSIS;
}
