import { describe, expect, it } from 'vitest';
import { voteEffect } from './votes.js';

describe('voteEffect', () => {
  it('counts a first vote, ignores a repeat, and moves a changed vote', () => {
    expect(voteEffect(null, 'verify')).toEqual({ changed: true, verifications: 1, contradictions: 0, verified: true });
    expect(voteEffect(null, 'contradict')).toEqual({ changed: true, verifications: 0, contradictions: 1, verified: false });
    expect(voteEffect('verify', 'verify')).toEqual({ changed: false, verifications: 0, contradictions: 0, verified: false });
    expect(voteEffect('verify', 'contradict')).toEqual({ changed: true, verifications: -1, contradictions: 1, verified: false });
    expect(voteEffect('contradict', 'verify')).toEqual({ changed: true, verifications: 1, contradictions: -1, verified: true });
  });
});
