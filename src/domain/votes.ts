/**
 * What a vote does (decisions.md, Verification and contradiction): one vote per voter and
 * object; the same vote again changes nothing; the other kind moves the vote; a verification
 * sets `last_verified_at`. Stores apply the effect; they do not decide it.
 */
import type { VoteKind } from './model.js';

export interface VoteEffect {
  /** False when the voter had already cast this vote: nothing to store. */
  changed: boolean;
  /** Added to the object's verification and contradiction counts. */
  verifications: number;
  contradictions: number;
  /** Whether `last_verified_at` becomes the vote's time. */
  verified: boolean;
}

export function voteEffect(prior: VoteKind | null, next: VoteKind): VoteEffect {
  if (prior === next) return { changed: false, verifications: 0, contradictions: 0, verified: false };
  const count = (kind: VoteKind) => (next === kind ? 1 : 0) - (prior === kind ? 1 : 0);
  return { changed: true, verifications: count('verify'), contradictions: count('contradict'), verified: next === 'verify' };
}
