import { describe, expect, it } from 'vitest';
import { highlightParts, relativeTime } from './format.js';

const NOW = Date.parse('2026-05-01T12:00:00.000Z');

describe('relativeTime', () => {
  it.each([
    ['2026-05-01T11:59:30.000Z', 'just now'],
    ['2026-05-01T11:55:00.000Z', '5 minutes ago'],
    ['2026-05-01T11:00:00.000Z', '1 hour ago'],
    ['2026-04-28T12:00:00.000Z', '3 days ago'],
    ['2026-05-31T12:00:00.000Z', 'in 1 month'],
    ['2028-05-01T12:00:00.000Z', 'in 2 years'],
  ])('%s → %s', (iso, text) => expect(relativeTime(iso, NOW)).toBe(text));
});

describe('highlightParts', () => {
  it('marks query words case-insensitively and keeps every character', () => {
    const parts = highlightParts('Pool exhausted; the POOL is full', 'pool full');
    expect(parts.map((p) => p.text).join('')).toBe('Pool exhausted; the POOL is full');
    expect(parts.filter((p) => p.mark).map((p) => p.text)).toEqual(['Pool', 'POOL', 'full']);
  });
  it('treats regex characters in the query as text', () => {
    expect(highlightParts('a (b) c', '(b) .*').filter((p) => p.mark).map((p) => p.text)).toEqual([]);
  });
});
