import { describe, expect, it } from 'vitest';
import { iso } from './present.js';

describe('iso', () => {
  it('formats each instant as RFC 3339 with milliseconds, asked once or again, before and after the kept ones are dropped', () => {
    const base = Date.UTC(2026, 10, 27, 1, 2, 3, 45);
    expect(iso(base)).toBe('2026-11-27T01:02:03.045Z');
    // Far more instants than are kept: each answer is its own instant's, first time and again.
    for (let i = 0; i < 50_000; i++) expect(iso(base + i * 1000)).toBe(new Date(base + i * 1000).toISOString());
    for (let i = 49_999; i >= 0; i -= 997) expect(iso(base + i * 1000)).toBe(new Date(base + i * 1000).toISOString());
    expect(iso(0)).toBe('1970-01-01T00:00:00.000Z');
  });
});
