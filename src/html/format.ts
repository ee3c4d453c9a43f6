/** Text helpers for pages: relative times and query-term highlighting. */

const UNITS: [number, string][] = [
  [365 * 86_400_000, 'year'],
  [30 * 86_400_000, 'month'],
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
];

/** "3 days ago", "in 2 hours", "just now". */
export function relativeTime(iso: string, now: number): string {
  const delta = Date.parse(iso) - now;
  const abs = Math.abs(delta);
  for (const [ms, unit] of UNITS) {
    if (abs >= ms) {
      const n = Math.floor(abs / ms);
      const words = `${n} ${unit}${n === 1 ? '' : 's'}`;
      return delta < 0 ? `${words} ago` : `in ${words}`;
    }
  }
  return 'just now';
}

/** Splits `text` into plain and matched parts for the query's words (case-insensitive). */
export function highlightParts(text: string, q: string): { text: string; mark: boolean }[] {
  const words = [...new Set(q.toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter((w) => w.length >= 2))];
  if (words.length === 0) return [{ text, mark: false }];
  const pattern = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`, 'giu');
  return text
    .split(pattern)
    .filter((p) => p !== '')
    .map((p) => ({ text: p, mark: words.includes(p.toLowerCase()) }));
}
