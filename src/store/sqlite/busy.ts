/**
 * Every call into the SQLite store goes through `guard`: it waits at the write gate while
 * another request's transaction is open (write-gate.ts), and maps busy-database errors.
 * SQLite answers SQLITE_BUSY when another process holds the write lock past busy_timeout (a
 * long import, say). That is a passing condition, not a bug: callers get `unavailable` (503
 * with Retry-After) instead of an internal error.
 */
import { DomainError } from '../../domain/errors.js';
import type { WriteGate } from './write-gate.js';

const BUSY = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_LOCKED']);

function rethrow(err: unknown): never {
  if (BUSY.has((err as { code?: string } | null)?.code ?? '')) {
    throw new DomainError('unavailable', 'The database is busy with another writer; retry shortly.');
  }
  throw err;
}

/** Wraps every method of `target`: it waits at `gate`, and busy errors, thrown or rejected, become `unavailable`. */
export function guard<T extends object>(target: T, gate: WriteGate): T {
  return new Proxy(target, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj) as unknown;
      if (typeof value !== 'function') return value;
      const call = (args: unknown[]) => {
        try {
          const result = (value as (...a: unknown[]) => unknown).apply(obj, args);
          return result instanceof Promise ? result.catch(rethrow) : result;
        } catch (err) {
          return rethrow(err);
        }
      };
      return (...args: unknown[]) => {
        const waiting = gate.wait();
        return waiting ? waiting.then(() => call(args)) : call(args);
      };
    },
  });
}
