/** Expiry rules (docs/decisions.md, Lifetimes and states): defaults per type, clamped into [now + min, now + max]. */
import type { BoardLimits } from './limits.js';
import type { RootType, StoredObject } from './model.js';
import { DomainError, invalid } from './errors.js';

export interface ExpiryInput {
  expiresIn?: number | undefined;
  expiresAt?: string | undefined;
}

/**
 * The expiry of a new object. `bounds` is the root type whose maximum applies (a reply uses its
 * parent's type); `fallback` is the expiry when none is given (a reply inherits its parent's).
 * An `expires_at` already in the past is a validation error, not clamped.
 */
export function resolveExpiry(
  input: ExpiryInput,
  bounds: RootType,
  now: number,
  limits: BoardLimits,
  fallback?: number,
): number {
  const min = now + limits.lifetimeMinSeconds * 1000;
  const max = now + limits.lifetimes[bounds].maxSeconds * 1000;
  let wanted: number;
  if (input.expiresAt !== undefined) {
    wanted = Date.parse(input.expiresAt);
    if (wanted < now) throw invalid([{ path: 'expires_at', message: 'is in the past' }]);
  } else if (input.expiresIn !== undefined) {
    wanted = now + input.expiresIn * 1000;
  } else {
    wanted = fallback ?? now + limits.lifetimes[bounds].defaultSeconds * 1000;
  }
  if (!Number.isFinite(wanted)) throw new DomainError('validation-error', 'expiry out of range', [{ path: 'expires_at', message: 'is out of range' }]);
  return Math.min(Math.max(wanted, min), max);
}

/**
 * Verification keeps knowledge alive: a voter's first verification of a live finding, request
 * or artifact moves its expiry to max(current, now + the type's default lifetime), capped at
 * created_at + the type's maximum. Status notes and replies keep theirs; so does everything
 * else. Answers the new expiry, or null when it does not move.
 */
export function extendedExpiry(o: Pick<StoredObject, 'type' | 'createdAt' | 'expiresAt'>, now: number, limits: BoardLimits): number | null {
  if (o.type !== 'finding' && o.type !== 'request' && o.type !== 'artifact') return null;
  const life = limits.lifetimes[o.type];
  const moved = Math.min(Math.max(o.expiresAt, now + life.defaultSeconds * 1000), o.createdAt + life.maxSeconds * 1000);
  return moved > o.expiresAt ? moved : null;
}
