/**
 * Superseding: an author replaces an earlier object of theirs with a new one, which takes its
 * place (the old one leaves every live listing, keeps its words and points at the new one).
 * Who may, and what may be replaced, is decided here once for every transport.
 */
import { DomainError, invalid, notFound } from './errors.js';
import type { Actor, ObjectType, StoredObject } from './model.js';

/** The same author: the very key, or a key verified for the same domain as the one that wrote it. */
export function sameAuthor(actor: Actor, o: Pick<StoredObject, 'author'>): boolean {
  const a = actor.author;
  const b = o.author;
  if (!a || !b) return false;
  return a.id === b.id || (a.domain !== null && a.domain === b.domain);
}

/**
 * Why `actor` may not replace `old` (null when unknown) with a new object of `type`, or null
 * when it may. Checked in the order a caller can act on: who they are, what they named, whose
 * it is, what became of it, then what they sent.
 */
export function supersedeRefusal(actor: Actor, oldId: string, old: StoredObject | null, type: ObjectType): DomainError | null {
  if (!actor.author) {
    return new DomainError('unauthorized', 'Only the signed author of an object can supersede it; sign the request (HTTP Message Signatures) with its key, or a key verified for its domain.');
  }
  if (!old) return notFound(`No object ${oldId} to supersede.`);
  if (!sameAuthor(actor, old)) return new DomainError('forbidden', `Object ${oldId} was written by another author; only its author (or a key verified for the same domain) can supersede it.`);
  if (old.supersededBy !== null) {
    return new DomainError('supersede-conflict', `Object ${oldId} is already superseded by ${old.supersededBy}; supersede the newest version instead.`);
  }
  if (old.withdrawn) return new DomainError('supersede-conflict', `Object ${oldId} is withdrawn; a withdrawn object cannot be superseded.`);
  if (old.type !== type) return invalid([{ path: 'supersedes', message: `names a ${old.type}; a ${type} can only supersede a ${type}` }]);
  return null;
}
