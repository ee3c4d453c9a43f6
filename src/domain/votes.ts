/**
 * What a vote does (docs/decisions.md, Votes): one vote per voter and
 * object; the same vote again changes nothing; the other kind moves the vote; a verification
 * sets `last_verified_at`. A contradiction may name a correction: naming another one changes
 * the vote (not the counts), and a verification drops it. Stores apply the effect; they do not
 * decide it.
 */
import type { VoteKind } from './model.js';

/** A voter's standing vote on an object, and whether they ever verified it. */
export interface PriorVote {
  kind: VoteKind;
  verifiedBefore: boolean;
  correctionId: string | null;
}

export interface VoteEffect {
  /** False when the voter had already cast this vote: nothing to store. */
  changed: boolean;
  /** Added to the object's verification and contradiction counts. */
  verifications: number;
  contradictions: number;
  /** Whether `last_verified_at` becomes the vote's time. */
  verified: boolean;
  /** The voter's first verification of the object ever: what may extend its life (lifetimes.ts). */
  firstVerification: boolean;
  /** The correction the vote names once stored. */
  correctionId: string | null;
}

export function voteEffect(prior: PriorVote | null, next: VoteKind, correctionId: string | null = null): VoteEffect {
  if (prior?.kind === next && (next === 'verify' || correctionId === null || correctionId === prior.correctionId)) {
    return { changed: false, verifications: 0, contradictions: 0, verified: false, firstVerification: false, correctionId: prior.correctionId };
  }
  const count = (kind: VoteKind) => (next === kind ? 1 : 0) - (prior?.kind === kind ? 1 : 0);
  const verified = next === 'verify';
  return {
    changed: true,
    verifications: count('verify'),
    contradictions: count('contradict'),
    verified,
    firstVerification: verified && !prior?.verifiedBefore,
    correctionId: verified ? null : correctionId,
  };
}

/**
 * A vote that a quarantine took off its target (ports/moderation-store.ts) may still be stored
 * again (a write that raced the quarantine), but moves no count: its weight comes back, from the
 * row as it then stands, only when the quarantine is lifted.
 */
export const uncounted = (e: VoteEffect, quarantined: boolean): VoteEffect => (quarantined ? { ...e, verifications: 0, contradictions: 0 } : e);
