/**
 * States and flags (docs/decisions.md, Lifetimes and states). Stores do not evaluate "live":
 * they keep `liveUntil` as computed here, and filter on `live_until > now`.
 */
import type { LiveCriteria, ObjectState, StoredObject } from './model.js';

type Counts = Pick<StoredObject, 'verificationCount' | 'contradictionCount'>;

/** The facts an object's standing is derived from. */
export type StandingFacts = Counts & Pick<StoredObject, 'hidden' | 'quarantined' | 'withdrawn' | 'supersededBy' | 'expiresAt'>;

export const isDisputed = (o: Counts, minContradictions: number): boolean =>
  o.contradictionCount >= minContradictions && o.contradictionCount > o.verificationCount;

/**
 * The instant an object stops being live: its expiry while it stands, 0 once it is hidden (by a
 * moderator, or as written by a quarantined source), withdrawn, superseded or disputed. Time is the only input a store compares, so one column and one
 * index answer "live" on every store.
 */
export function liveUntil(o: StandingFacts, minContradictions: number): number {
  return o.hidden || o.quarantined || o.withdrawn || o.supersededBy !== null || isDisputed(o, minContradictions) ? 0 : o.expiresAt;
}

/**
 * The instant an object stops wanting a vector: its expiry, or 0 once withdrawn or superseded.
 * Expired, withdrawn and superseded are final; a hidden or disputed object may come back, so it keeps its vector and
 * its place in the embedding queue.
 */
export function vectorWantedUntil(o: Pick<StoredObject, 'withdrawn' | 'supersededBy' | 'expiresAt'>): number {
  return o.withdrawn || o.supersededBy !== null ? 0 : o.expiresAt;
}

/**
 * Names the rule stores keep `liveUntil` by. A store whose stamp differs re-derives what it
 * keeps, so a changed DISPUTE_MIN_CONTRADICTIONS (or a changed rule: bump the number) takes
 * effect on every object, not just the next ones written.
 */
export const standingStamp = (minContradictions: number): string => `live-until/3 dispute-min=${minContradictions}`;

/** Hidden (moderation) shows over everything; withdrawn, superseded and expired are final; disputed comes and goes with votes. */
export function stateOf(o: StoredObject, live: LiveCriteria): ObjectState {
  if (o.hidden || o.quarantined) return 'hidden';
  if (o.withdrawn) return 'withdrawn';
  if (o.supersededBy !== null) return 'superseded';
  if (o.expiresAt <= live.now) return 'expired';
  if (isDisputed(o, live.disputeMinContradictions)) return 'disputed';
  return 'live';
}

/**
 * Hidden and withdrawn objects keep everything but their words (docs/decisions.md): title, content
 * and source are blanked, and neither their replies nor their votes' notes are listed.
 */
export const wordsWithheld = (state: ObjectState): boolean => state === 'hidden' || state === 'withdrawn';

export type Flag = 'anonymous' | 'possible-prompt-injection' | 'contradicted' | 'expiring';

type Times = Pick<StoredObject, 'createdAt' | 'expiresAt'>;

/** `expiring` holds strictly after this instant (the last `expiringFraction` of the lifetime), until expiry. */
const expiringAfter = (o: Times, expiringFraction: number): number => o.expiresAt - (o.expiresAt - o.createdAt) * expiringFraction;

const isExpiring = (o: Times, now: number, expiringFraction: number): boolean => now > expiringAfter(o, expiringFraction) && now < o.expiresAt;

export function flagsOf(o: StoredObject, now: number, expiringFraction: number): Flag[] {
  const flags: Flag[] = [];
  if (!o.author) flags.push('anonymous');
  if (o.injectionSuspected) flags.push('possible-prompt-injection');
  if (o.contradictionCount > 0) flags.push('contradicted');
  if (isExpiring(o, now, expiringFraction)) flags.push('expiring');
  return flags;
}

/**
 * The first instant after `now` at which the passing of time alone may change how `o` is shown
 * (its state becomes `expired`, or it gains the `expiring` flag); Infinity when nothing is left
 * to change. An answer shown as of `now` stays exact strictly before it.
 */
export function nextShownChange(o: Times, now: number, expiringFraction: number): number {
  let next = Infinity;
  // The first whole millisecond strictly after the instant `expiring` holds from.
  for (const at of [Math.floor(expiringAfter(o, expiringFraction)) + 1, o.expiresAt]) if (at > now && at < next) next = at;
  return next;
}
