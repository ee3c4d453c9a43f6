/** Query tokens, verbatim matching and snippets: the text side of search, store-independent. */
import { ELLIPSIS, nfc, words } from '../domain/text.js';
import type { MatchTier } from './ranking.js';

/** Case-folded, NFC, whitespace-collapsed form used for verbatim comparison. */
export const fold = (s: string): string => nfc(s).toLowerCase().replace(/\s+/gu, ' ').trim();

/** The query's word tokens (letters and digits), lowercased, unique, in order. */
export function queryTerms(q: string): string[] {
  const seen = new Set<string>();
  for (const t of words(q)) seen.add(t);
  return [...seen].slice(0, 32);
}

/**
 * The match tier of a candidate (see ranking.ts): 2 when its title or content holds the query
 * verbatim, punctuation and all; 1 when it holds every term; 0 otherwise. Only a candidate
 * whose terms form the query's phrase can hold it verbatim, so only those are compared.
 */
export function matchTier(q: string, hit: { allTerms: boolean; phrase: boolean }, title: string, content: string): MatchTier {
  if (hit.phrase) {
    const fq = fold(q);
    if (fq && (fold(content).includes(fq) || fold(title).includes(fq))) return 2;
  }
  return hit.allTerms ? 1 : 0;
}

/**
 * Plain text of at most `max` code points from `content` around the best match of `q`
 * (the verbatim query, else the first query term), with `…` where cut.
 */
export function snippet(content: string, q: string, max: number): string {
  const chars = [...content.replace(/\s+/gu, ' ').trim()];
  if (chars.length <= max) return chars.join('');
  const lower = chars.map((c) => c.toLowerCase());
  const hay = lower.join('');
  let at = -1;
  const fq = fold(q);
  const probes = [fq, ...queryTerms(q)].filter(Boolean);
  for (const p of probes) {
    const i = hay.indexOf(p);
    if (i >= 0) {
      // Convert the UTF-16 index back into a code-point index.
      at = [...hay.slice(0, i)].length;
      break;
    }
  }
  const budget = max - 2; // room for an ellipsis on each side
  let start = at < 0 ? 0 : Math.max(0, at - Math.floor(budget / 4));
  start = Math.min(start, chars.length - budget);
  const end = Math.min(chars.length, start + (start === 0 ? max - 1 : budget));
  return (start > 0 ? ELLIPSIS : '') + chars.slice(start, end).join('').trim() + (end < chars.length ? ELLIPSIS : '');
}
