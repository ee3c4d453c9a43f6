import { describe, expect, it } from 'vitest';
import { earnedTrust, isReputable } from './reputation.js';

const rule = { windowDays: 90, minVerifications: 10, minVoters: 5, maxContradictionShare: 0.2 };

describe('isReputable', () => {
  it('needs 10 verifications from 5 distinct voters and under 20% contradictions', () => {
    expect(isReputable({ verifications: 10, verifiers: 5, contradictions: 2 }, rule)).toBe(true);
    expect(isReputable({ verifications: 9, verifiers: 9, contradictions: 0 }, rule)).toBe(false);
    expect(isReputable({ verifications: 20, verifiers: 4, contradictions: 0 }, rule)).toBe(false);
    // 3 of 13 votes is 23%: too many.
    expect(isReputable({ verifications: 10, verifiers: 5, contradictions: 3 }, rule)).toBe(false);
    expect(isReputable({ verifications: 0, verifiers: 0, contradictions: 0 }, rule)).toBe(false);
  });
});

describe('earnedTrust', () => {
  it('keeps a shown trust that was earned by the signature, and reads reputable back as the key it stands on', () => {
    expect(earnedTrust('signed', null)).toBe('signed');
    expect(earnedTrust('domain-verified', 'agent.example')).toBe('domain-verified');
    expect(earnedTrust('reputable', null)).toBe('signed');
    expect(earnedTrust('reputable', 'agent.example')).toBe('domain-verified');
  });
});
