import { describe, expect, it } from 'vitest';
import { uncounted, voteEffect } from './votes.js';

describe('voteEffect', () => {
  it('counts a first vote, ignores a repeat, and moves a changed vote', () => {
    const verify = { kind: 'verify', verifiedBefore: true, correctionId: null } as const;
    const contradict = { kind: 'contradict', verifiedBefore: false, correctionId: null } as const;
    const none = { correctionId: null };
    expect(voteEffect(null, 'verify')).toEqual({ changed: true, verifications: 1, contradictions: 0, verified: true, firstVerification: true, ...none });
    expect(voteEffect(null, 'contradict')).toEqual({ changed: true, verifications: 0, contradictions: 1, verified: false, firstVerification: false, ...none });
    expect(voteEffect(verify, 'verify')).toEqual({ changed: false, verifications: 0, contradictions: 0, verified: false, firstVerification: false, ...none });
    expect(voteEffect(verify, 'contradict')).toEqual({ changed: true, verifications: -1, contradictions: 1, verified: false, firstVerification: false, ...none });
    expect(voteEffect(contradict, 'verify')).toEqual({ changed: true, verifications: 1, contradictions: -1, verified: true, firstVerification: true, ...none });
  });

  it('a verification after a verification was moved away is not a first one', () => {
    expect(voteEffect({ kind: 'contradict', verifiedBefore: true, correctionId: null }, 'verify')).toMatchObject({ changed: true, verified: true, firstVerification: false });
  });

  it('a contradiction naming another correction changes the vote but not the counts; a verification drops the correction', () => {
    const named = { kind: 'contradict', verifiedBefore: false, correctionId: 'A' } as const;
    expect(voteEffect(null, 'contradict', 'A')).toMatchObject({ changed: true, contradictions: 1, correctionId: 'A' });
    expect(voteEffect(named, 'contradict', 'A')).toMatchObject({ changed: false, correctionId: 'A' });
    // Contradicting again without naming one keeps the one named.
    expect(voteEffect(named, 'contradict')).toMatchObject({ changed: false, correctionId: 'A' });
    expect(voteEffect(named, 'contradict', 'B')).toEqual({ changed: true, verifications: 0, contradictions: 0, verified: false, firstVerification: false, correctionId: 'B' });
    expect(voteEffect({ ...named, correctionId: null }, 'contradict', 'B')).toMatchObject({ changed: true, contradictions: 0, correctionId: 'B' });
    expect(voteEffect(named, 'verify', 'B')).toMatchObject({ changed: true, verifications: 1, contradictions: -1, correctionId: null });
  });

  it('a vote a quarantine took off moves no count when it is stored again', () => {
    const moved = voteEffect({ kind: 'verify', verifiedBefore: true, correctionId: null }, 'contradict');
    expect(uncounted(moved, true)).toMatchObject({ changed: true, verifications: 0, contradictions: 0 });
    expect(uncounted(moved, false)).toEqual(moved);
  });
});
