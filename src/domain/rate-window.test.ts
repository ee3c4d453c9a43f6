import { describe, expect, it } from 'vitest';
import { fixedWindow } from './rate-window.js';

describe('fixedWindow', () => {
  it('puts every instant of one window under one counter, ending where the next begins', () => {
    const a = fixedWindow('k', 60_000, 120_000);
    const b = fixedWindow('k', 60_000, 179_999);
    const c = fixedWindow('k', 60_000, 180_000);
    expect(a).toEqual({ counterKey: 'k@120000', resetAt: 180_000 });
    expect(b).toEqual(a);
    expect(c).toEqual({ counterKey: 'k@180000', resetAt: 240_000 });
  });
});
