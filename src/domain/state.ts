/** States and flags (decisions.md, Lifetimes and states). The store's live filter must agree with `stateOf`. */
import type { LiveCriteria, ObjectState, StoredObject } from './model.js';

type Counts = Pick<StoredObject, 'verificationCount' | 'contradictionCount'>;

export const isDisputed = (o: Counts, minContradictions: number): boolean =>
  o.contradictionCount >= minContradictions && o.contradictionCount > o.verificationCount;

/** Hidden (moderation) shows over everything; withdrawn and expired are final; disputed comes and goes with votes. */
export function stateOf(o: StoredObject, live: LiveCriteria): ObjectState {
  if (o.hidden) return 'hidden';
  if (o.withdrawn) return 'withdrawn';
  if (o.expiresAt <= live.now) return 'expired';
  if (isDisputed(o, live.disputeMinContradictions)) return 'disputed';
  return 'live';
}

/**
 * Hidden and withdrawn objects keep everything but their words (decisions.md): title, content
 * and source are blanked, and neither their replies nor their votes' notes are listed.
 */
export const wordsWithheld = (state: ObjectState): boolean => state === 'hidden' || state === 'withdrawn';

export type Flag = 'anonymous' | 'possible-prompt-injection' | 'contradicted' | 'expiring';

export function flagsOf(o: StoredObject, now: number, expiringFraction: number): Flag[] {
  const flags: Flag[] = [];
  if (!o.author) flags.push('anonymous');
  if (o.injectionSuspected) flags.push('possible-prompt-injection');
  if (o.contradictionCount > 0) flags.push('contradicted');
  const lifetime = o.expiresAt - o.createdAt;
  const left = o.expiresAt - now;
  if (left > 0 && left < lifetime * expiringFraction) flags.push('expiring');
  return flags;
}
