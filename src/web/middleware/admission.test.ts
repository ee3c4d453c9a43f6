import { describe, expect, it } from 'vitest';
import { AdmissionLimit } from './admission.js';

describe('AdmissionLimit', () => {
  it('admits up to its limit, and one more once a place is given back', () => {
    const l = new AdmissionLimit({ maxInFlight: 3, minInFlight: 1, targetMs: 0 });
    expect([l.admit(), l.admit(), l.admit(), l.admit()]).toEqual([true, true, true, false]);
    l.done(null, 0);
    expect(l.admit()).toBe(true);
    expect(l.admit()).toBe(false);
  });

  it('shrinks by a tenth for a slow read, at most once per target, never below its minimum', () => {
    const l = new AdmissionLimit({ maxInFlight: 100, minInFlight: 4, targetMs: 100 });
    const slowRead = (now: number) => {
      l.admit();
      l.done(500, now);
    };
    slowRead(1000);
    expect(l.limit).toBe(90);
    // Within the same target's time: no second shrink.
    slowRead(1050);
    expect(l.limit).toBe(90);
    slowRead(1100);
    expect(l.limit).toBe(81);
    for (let t = 1200; t < 10_000; t += 100) slowRead(t);
    expect(l.limit).toBe(4);
    // Writes are not timed: a slow upload leaves the limit alone.
    const before = l.limit;
    l.admit();
    l.done(null, 20_000);
    expect(l.limit).toBe(before);
  });

  it('grows back toward its maximum as reads are answered in time', () => {
    const l = new AdmissionLimit({ maxInFlight: 50, minInFlight: 4, targetMs: 100 });
    for (let t = 0; t < 3000; t += 100) {
      l.admit();
      l.done(1000, t);
    }
    expect(l.limit).toBe(4);
    let reads = 0;
    while (l.limit < 50 && reads < 10_000) {
      l.admit();
      l.done(5, 5000);
      reads++;
    }
    expect(l.limit).toBe(50);
    // Additive: about limit reads for each place, so hundreds of reads, not a handful.
    expect(reads).toBeGreaterThan(500);
    l.admit();
    l.done(5, 5000);
    expect(l.limit).toBe(50);
  });
});
