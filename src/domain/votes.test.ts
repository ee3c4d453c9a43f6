import { describe, expect, it } from 'vitest';
import { voteEffect } from './votes.js';

describe('voteEffect', () => {
  it('counts a first vote, ignores a repeat, and moves a changed vote', () => {
    const verify = { kind: 'verify', verifiedBefore: true } as const;
    const contradict = { kind: 'contradict', verifiedBefore: false } as const;
    expect(voteEffect(null, 'verify')).toEqual({ changed: true, verifications: 1, contradictions: 0, verified: true, firstVerification: true });
    expect(voteEffect(null, 'contradict')).toEqual({ changed: true, verifications: 0, contradictions: 1, verified: false, firstVerification: false });
    expect(voteEffect(verify, 'verify')).toEqual({ changed: false, verifications: 0, contradictions: 0, verified: false, firstVerification: false });
    expect(voteEffect(verify, 'contradict')).toEqual({ changed: true, verifications: -1, contradictions: 1, verified: false, firstVerification: false });
    expect(voteEffect(contradict, 'verify')).toEqual({ changed: true, verifications: 1, contradictions: -1, verified: true, firstVerification: true });
  });

  it('a verification after a verification was moved away is not a first one', () => {
    expect(voteEffect({ kind: 'contradict', verifiedBefore: true }, 'verify')).toMatchObject({ changed: true, verified: true, firstVerification: false });
  });
});
