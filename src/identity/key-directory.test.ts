import { describe, expect, it } from 'vitest';
import { cacheSeconds } from './key-directory.js';

describe('cacheSeconds', () => {
  it('follows max-age up to the cap, and caches nothing otherwise', () => {
    expect(cacheSeconds('public, max-age=300', 86_400)).toBe(300);
    expect(cacheSeconds('s-maxage=600', 86_400)).toBe(600);
    expect(cacheSeconds('max-age=31536000', 86_400)).toBe(86_400);
    expect(cacheSeconds('max-age=300, no-store', 86_400)).toBe(0);
    expect(cacheSeconds('no-cache', 86_400)).toBe(0);
    expect(cacheSeconds(undefined, 86_400)).toBe(0);
    expect(cacheSeconds('max-age=abc', 86_400)).toBe(0);
  });
});
