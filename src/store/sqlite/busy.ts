/**
 * SQLite answers SQLITE_BUSY when another process holds the write lock past busy_timeout (a
 * long import, say). That is a passing condition, not a bug: callers get `unavailable` (503
 * with Retry-After) instead of an internal error.
 */
import { DomainError } from '../../domain/errors.js';

const BUSY = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_LOCKED']);

function rethrow(err: unknown): never {
  if (BUSY.has((err as { code?: string } | null)?.code ?? '')) {
    throw new DomainError('unavailable', 'The database is busy with another writer; retry shortly.');
  }
  throw err;
}

/** Wraps every method of `target` so busy errors, thrown or rejected, become `unavailable`. */
export function mapBusyErrors<T extends object>(target: T): T {
  return new Proxy(target, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          const result = (value as (...a: unknown[]) => unknown).apply(obj, args);
          return result instanceof Promise ? result.catch(rethrow) : result;
        } catch (err) {
          return rethrow(err);
        }
      };
    },
  });
}
