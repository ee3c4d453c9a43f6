/**
 * Wraps every method of a store half: `around` receives the call (and the method's name) and
 * returns what the caller gets. Both stores route every call through it (SQLite's write gate
 * and busy errors, PostgreSQL's connection errors), so no method can forget either.
 */
export function wrapMethods<T extends object>(target: T, around: (invoke: () => unknown, name: PropertyKey) => unknown): T {
  return new Proxy(target, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => around(() => (value as (...a: unknown[]) => unknown).apply(obj, args), prop);
    },
  });
}

/** Maps a call's error, thrown or rejected, through `map`. */
export function mapErrors(invoke: () => unknown, map: (err: unknown) => unknown): unknown {
  try {
    const result = invoke();
    return result instanceof Promise ? result.catch((err: unknown) => Promise.reject(map(err))) : result;
  } catch (err) {
    throw map(err);
  }
}
