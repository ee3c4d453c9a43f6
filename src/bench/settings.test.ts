import { describe, expect, it } from 'vitest';
import { loadBenchSettings } from './settings.js';

describe('bench settings', () => {
  it('reads the environment with its defaults', () => {
    const s = loadBenchSettings({ BENCH_STORES: 'SQLite, postgresql', BENCH_SIZES: '1000,1000000', BENCH_WARMUP: '0' });
    expect(s.BENCH_STORES).toEqual(['SQLite', 'postgresql']);
    expect(s.BENCH_SIZES).toEqual([1000, 1_000_000]);
    expect(s.BENCH_WARMUP).toBe(0);
    expect(s.BENCH_SLICES).toBe(3);
    expect(s.BENCH_SEED).toBe(4000);
  });

  it('refuses bad values, naming each', () => {
    expect(() => loadBenchSettings({ BENCH_SLICES: '0', BENCH_SIZES: '10,abc', BENCH_DURATION: 'soon' })).toThrow(/BENCH_SLICES.*BENCH_DURATION|BENCH_DURATION.*BENCH_SLICES/);
    expect(() => loadBenchSettings({ BENCH_SIZES: '10,abc' })).toThrow(/BENCH_SIZES/);
  });
});
