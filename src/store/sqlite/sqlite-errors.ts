/**
 * Every call into the SQLite store goes through `guard`: it waits at the write gate while
 * another request's transaction is open (write-gate.ts), and maps busy-database and full-disk errors.
 * SQLite answers SQLITE_BUSY when another process holds the write lock past busy_timeout (a
 * long import, say). That is a passing condition, not a bug: callers get `unavailable` (503
 * with Retry-After) instead of an internal error.
 */
import { DomainError } from '../../domain/errors.js';
import { mapErrors, wrapMethods } from '../wrap-methods.js';
import type { WriteGate } from './write-gate.js';

/** SQLITE_BUSY and SQLITE_LOCKED, with their extended codes (a stale snapshot, a recovery under way, a timeout). */
export const isBusy = (err: unknown): boolean => /^SQLITE_(BUSY|LOCKED)/.test((err as { code?: string } | null)?.code ?? '');

/** SQLITE_FULL, and the I/O errors a write meets on a disk with no room (SQLITE_IOERR and its extended codes). */
const isOutOfRoom = (err: unknown): boolean => /^SQLITE_(FULL|IOERR)/.test((err as { code?: string } | null)?.code ?? '');

function toDomainError(err: unknown): unknown {
  if (isBusy(err)) {
    return new DomainError('unavailable', 'The database is busy with another writer; retry shortly.');
  }
  // A full disk passes once the operator frees space: nothing was written, and reads go on.
  if (isOutOfRoom(err)) {
    return new DomainError('unavailable', 'The database cannot write now (its disk is full or failing); nothing was stored. Retry later.');
  }
  return err;
}

/**
 * Wraps every method of `target`: busy errors, thrown or rejected, become `unavailable`; with
 * a `gate`, it first waits while another transaction holds the connection. Without one, for
 * the halves handed to the transaction that holds it. The `queued` methods wait in a queue of
 * their own for the gate (a group commit's), and are called at once.
 */
export function guard<T extends object>(target: T, gate: WriteGate | null, queued: readonly (keyof T)[] = []): T {
  return wrapMethods(target, (invoke, name) => {
    const call = () => mapErrors(invoke, toDomainError);
    const waiting = queued.includes(name as keyof T) ? null : gate?.wait();
    return waiting ? waiting.then(call) : call();
  });
}
