/** `reputable` (docs/decisions.md, Identity and trust): earned from other voters' verifications. */
import type { BoardLimits } from './limits.js';
import type { TrustLevel } from './model.js';

export interface AuthorVoteStats {
  /** Verifications of the author's objects in the window, by voters other than the author. */
  verifications: number;
  /** Distinct voters among those verifications. */
  verifiers: number;
  contradictions: number;
}

/** At least N verifications from at least M distinct other voters, and contradictions under the share. */
export function isReputable(s: AuthorVoteStats, rule: BoardLimits['reputation']): boolean {
  const votes = s.verifications + s.contradictions;
  return s.verifications >= rule.minVerifications && s.verifiers >= rule.minVoters && votes > 0 && s.contradictions / votes < rule.maxContradictionShare;
}

/** The trust an object shows: `reputable` while its author is, else what its signature earned. */
export const shownTrust = (base: TrustLevel, reputable: boolean): TrustLevel => (reputable ? 'reputable' : base);

/** The trust a signature earned, from what was shown: `reputable` is earned from votes, never stored, over a signed or domain-verified key. */
export const earnedTrust = (shown: TrustLevel, domain: string | null): TrustLevel => (shown !== 'reputable' ? shown : domain ? 'domain-verified' : 'signed');
