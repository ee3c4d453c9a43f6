/**
 * PostgreSQL errors in board terms. A server that is down, restarting, out of connections, or a
 * pool with no free connection in time, is a passing condition: `unavailable` (503 with
 * Retry-After), not an internal error. Text PostgreSQL cannot store (U+0000) is the caller's.
 */
import { DomainError } from '../../domain/errors.js';
import { mapErrors, wrapMethods } from '../wrap-methods.js';

const CONNECTION = /^(08|57P0|53300|53400)/;
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);

/** Whether `err` says the database cannot be reached now, rather than refusing a statement. */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  const code = e?.code ?? '';
  return CONNECTION.test(code) || NETWORK.has(code) || /timeout exceeded when trying to connect|Connection terminated|connection timeout/i.test(e?.message ?? '');
}

export function toDomainError(err: unknown): unknown {
  if (isUnavailable(err)) return new DomainError('unavailable', 'The database is unavailable; retry shortly.');
  const code = (err as { code?: string } | null)?.code ?? '';
  // lock_timeout (a lock held too long elsewhere) or statement_timeout reached: the work was rolled back.
  if (code === '55P03' || code === '57014') return new DomainError('unavailable', 'The database did not answer in time (a lock or a statement timed out); nothing was changed. Retry shortly.');
  // A deadlock or serialization failure still there after the work was run again (mayRunAgain): it passes.
  if (code === '40P01' || code === '40001') return new DomainError('unavailable', 'The database broke a deadlock with other writes by rolling this one back; nothing was changed. Retry shortly.');
  if (code === '22021' || code === '22P05') return new DomainError('validation-error', 'Text must not contain the NUL character (U+0000).');
  return err;
}

/** Wraps every method of `target` so its errors pass through toDomainError. */
export function mapPgErrors<T extends object>(target: T): T {
  return wrapMethods(target, (invoke) => mapErrors(invoke, toDomainError));
}

/** Deadlocks and serialization failures: the work may simply be run again. */
const RETRYABLE = new Set(['40001', '40P01']);
const ATTEMPTS = 5;

/** Whether work that failed with `err` on its `attempts`th try may be run again. */
export const mayRunAgain = (err: unknown, attempts: number): boolean => RETRYABLE.has((err as { code?: string } | null)?.code ?? '') && attempts < ATTEMPTS;
