import { describe, expect, it } from 'vitest';
import { EVIDENCE_MAX, evidence, finalScore, freshness, legFloor, wilsonLowerBound } from './ranking.js';

const DAY = 86_400_000;
const P = { halfLifeDays: 14, freshnessFloor: 0.35 };

describe('freshness', () => {
  it('halves every 14 days and never drops below the floor', () => {
    expect(freshness(0, 14, 0.35)).toBe(1);
    expect(freshness(14 * DAY, 14, 0.35)).toBeCloseTo(0.5, 10);
    expect(freshness(365 * DAY, 14, 0.35)).toBe(0.35);
    expect(freshness(-DAY, 14, 0.35)).toBe(1);
  });
});

describe('evidence', () => {
  it('is 1 without votes, rises with verifications, falls with contradictions, within [0.5, 1.5]', () => {
    expect(evidence(0, 0)).toBe(1);
    expect(evidence(8, 0)).toBeGreaterThan(evidence(2, 0));
    expect(evidence(2, 0)).toBeGreaterThan(1);
    expect(evidence(0, 3)).toBeLessThan(1);
    expect(evidence(8, 4)).toBeLessThan(evidence(8, 0));
    for (const [v, c] of [[1000, 0], [0, 1000], [5, 5]]) {
      expect(evidence(v!, c!)).toBeGreaterThanOrEqual(0.5);
      expect(evidence(v!, c!)).toBeLessThanOrEqual(EVIDENCE_MAX);
    }
  });
  it('Wilson lower bound matches a known value', () => {
    expect(wilsonLowerBound(0, 0)).toBe(0);
    expect(wilsonLowerBound(8, 10)).toBeCloseTo(0.4902, 3);
  });
});

describe('finalScore', () => {
  const r = { tier: 0 as const, relevance: 1, ageMs: 0, verifications: 0, contradictions: 0 };
  it('never lets a looser tier overtake an exact match', () => {
    const bestLoose = finalScore({ ...r, tier: 1, verifications: 10_000 }, P);
    const worstExact = finalScore({ ...r, tier: 2, relevance: 0.01, ageMs: 1000 * DAY, contradictions: 50 }, P);
    expect(worstExact).toBeGreaterThan(bestLoose);
  });
  it('prefers fresh and verified within a tier', () => {
    expect(finalScore({ ...r, verifications: 5 }, P)).toBeGreaterThan(finalScore(r, P));
    expect(finalScore(r, P)).toBeGreaterThan(finalScore({ ...r, ageMs: 30 * DAY }, P));
  });
});

describe('legFloor', () => {
  it('is a share of the best score, never under the absolute minimum', () => {
    expect(legFloor([0.8, 0.5, 0.1], 0.5)).toBeCloseTo(0.4, 10);
    expect(legFloor([0.3, 0.1], 0.5, 0.25)).toBe(0.25);
    // A board of unrelated objects: the best is under the minimum, so nothing passes.
    expect([0.08, 0.02].filter((x) => x >= legFloor([0.08, 0.02], 0.5, 0.25))).toEqual([]);
    expect(legFloor([12, 3], 0)).toBe(0);
  });
});
