/** Query tokens, verbatim matching and snippets: the text side of search, store-independent. */
import { collapseSpace, ELLIPSIS, nfc, SURROGATE, words } from '../../domain/text.js';
import type { MatchTier } from './ranking.js';

/** Case-folded, NFC, whitespace-collapsed form used for verbatim comparison. */
export const fold = (s: string): string => collapseSpace(nfc(s).toLowerCase()).trim();

/** The query's word tokens (letters and digits), lowercased, unique, in order. */
export function queryTerms(q: string): string[] {
  const seen = new Set<string>();
  for (const t of words(q)) seen.add(t);
  return [...seen].slice(0, 32);
}

/**
 * The match tier of a candidate (see ranking.ts): 2 when its title or content holds the query
 * verbatim, punctuation and all; 1 when it holds every term; 0 otherwise. Only a candidate
 * whose terms form the query's phrase can hold it verbatim, so only those are compared. The
 * query comes folded (`fold(q)`), once for all of a search's candidates.
 */
export function matchTier(foldedQuery: string, hit: { allTerms: boolean; phrase: boolean }, title: string, content: string): MatchTier {
  if (hit.phrase && foldedQuery && (fold(content).includes(foldedQuery) || fold(title).includes(foldedQuery))) return 2;
  return hit.allTerms ? 1 : 0;
}

/** Where in `hay` (lowercase) the verbatim query, else the first query term found, starts; -1 if none. */
function firstMatch(hay: string, q: string): number {
  for (const p of [fold(q), ...queryTerms(q)]) {
    const i = p ? hay.indexOf(p) : -1;
    if (i >= 0) return i;
  }
  return -1;
}

/** At most `max` characters of a text `length` long around `at`, with `…` where cut. */
function cut(length: number, at: number, max: number, slice: (start: number, end: number) => string): string {
  const budget = max - 2; // room for an ellipsis on each side
  let start = at < 0 ? 0 : Math.max(0, at - Math.floor(budget / 4));
  start = Math.min(start, length - budget);
  const end = Math.min(length, start + (start === 0 ? max - 1 : budget));
  return (start > 0 ? ELLIPSIS : '') + slice(start, end).trim() + (end < length ? ELLIPSIS : '');
}

/**
 * Plain text of at most `max` code points from `content` around the best match of `q`
 * (the verbatim query, else the first query term), with `…` where cut.
 */
export function snippet(content: string, q: string, max: number): string {
  const text = collapseSpace(content).trim();
  if (text.length <= max) return text;
  const hay = text.toLowerCase();
  // Nearly all text: each character one UTF-16 unit, of the same length lowercased, so string indices are characters.
  if (hay.length === text.length && !SURROGATE.test(text)) return cut(text.length, firstMatch(hay, q), max, (a, b) => text.slice(a, b));
  const chars = [...text];
  if (chars.length <= max) return text;
  const lower = chars.map((c) => c.toLowerCase());
  const i = firstMatch(lower.join(''), q);
  // The index in the lowercased text back into a character index.
  let at = i < 0 ? -1 : 0;
  for (let n = 0; n < i; at++) n += lower[at]!.length;
  return cut(chars.length, at, max, (a, b) => chars.slice(a, b).join(''));
}
