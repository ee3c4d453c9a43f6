/**
 * Corrections: a contradiction may name the object that states what is right. Which object may
 * be named is decided here; how a named correction ranks is service/search/corrections-first.ts.
 */
import { invalid, type DomainError } from './errors.js';
import type { LiveCriteria, StoredObject } from './model.js';
import { stateOf } from './state.js';

/** Why `correction` (read for `correctionId`; null when unknown) may not correct `target`, or null when it may. */
export function correctionRefusal(target: StoredObject, correctionId: string, correction: StoredObject | null, live: LiveCriteria): DomainError | null {
  const refuse = (message: string) => invalid([{ path: 'correction_id', message }]);
  if (correctionId === target.id) return refuse('names the contradicted object itself');
  if (!correction || stateOf(correction, live) !== 'live') return refuse('names no live object on the board');
  if (correction.parentId === target.id) return refuse('names a reply to the contradicted object; name an object that stands on its own');
  return null;
}
