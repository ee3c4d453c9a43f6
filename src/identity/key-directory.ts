/**
 * Reading an agent's key directory (Web Bot Auth): `GET {origin}/.well-known/http-message-signatures-directory`,
 * a JWKS. Fetched through safeFetch (private addresses and plain http refused unless allowed),
 * cached in the kv for the response's Cache-Control lifetime, within a floor and a cap. A
 * directory that cannot be read is an error, never an empty list: the caller answers 401, and
 * the failure is remembered for a while too. So an origin's directory is fetched at most once
 * per floor period, whatever requests name it, and only after the requester paid (`charge`).
 * While the kv cannot be read, the process's own memory of directories and failures stands in
 * (with the same lifetimes), so an outage does not turn every signed request into a fetch.
 */
import type { Kv } from '../ports/kv.js';
import type { Clock } from '../ports/clock.js';
import { safeFetch, type SafeFetchOptions } from '../net/safe-fetch.js';
import { readPublicJwk, type Ed25519PublicJwk } from '../domain/jwk.js';

const DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';

export class DirectoryUnavailable extends Error {}

/** Seconds a response may be cached: `max-age` (or `s-maxage`), none for no-store/no-cache/private. */
export function cacheSeconds(cacheControl: string | undefined, cap: number): number {
  if (!cacheControl) return 0;
  const directives = cacheControl.toLowerCase().split(',').map((d) => d.trim());
  if (directives.some((d) => d === 'no-store' || d === 'no-cache')) return 0;
  const age = directives.map((d) => /^(?:s-maxage|max-age)\s*=\s*"?(\d{1,10})"?$/.exec(d)?.[1]).find((v) => v !== undefined);
  return age === undefined ? 0 : Math.min(Number(age), cap);
}

export class KeyDirectory {
  /** Fetches in flight by origin: a burst of requests naming one directory makes one fetch. */
  readonly #inFlight = new Map<string, Promise<Ed25519PublicJwk[]>>();
  /** What the kv holds, as this process wrote it: read only when the kv cannot be (oldest dropped first). */
  readonly #local = new Map<string, { value: string; until: number }>();

  constructor(
    private readonly deps: {
      kv: Kv;
      clock: Clock;
      fetch: SafeFetchOptions;
      /** Bounds of the cache lifetime, whatever the directory's Cache-Control says. */
      minCacheSeconds: number;
      maxCacheSeconds: number;
      /** How long a directory that could not be read is not asked again. */
      failureCacheSeconds: number;
      /** Entries the process remembers itself for a kv outage; 0 remembers none. */
      localEntries: number;
    },
  ) {}

  /**
   * The Ed25519 keys the origin's directory lists (other key types are skipped). `charge` runs
   * before a fetch leaves (not for a cached answer): it bills the requester, and may refuse.
   */
  async keys(origin: string, charge: () => Promise<void> = async () => undefined): Promise<Ed25519PublicJwk[]> {
    const now = this.deps.clock.now();
    const [cached, failed] = await Promise.all([this.#get(`keydir:${origin}`, now), this.#get(`keydir-failed:${origin}`, now)]);
    if (cached) return JSON.parse(cached) as Ed25519PublicJwk[];
    if (failed) throw new DirectoryUnavailable(`${failed} (not asked again for up to ${this.deps.failureCacheSeconds} s)`);
    let pending = this.#inFlight.get(origin);
    if (!pending) {
      // Set before the first await, so concurrent look-ups share it (and one charge).
      pending = (async () => {
        await charge();
        try {
          return await this.#fetch(origin);
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          await this.#set(`keydir-failed:${origin}`, message, this.deps.failureCacheSeconds * 1000);
          throw err;
        }
      })().finally(() => this.#inFlight.delete(origin));
      this.#inFlight.set(origin, pending);
    }
    return pending;
  }

  async #fetch(origin: string): Promise<Ed25519PublicJwk[]> {
    let res;
    try {
      res = await safeFetch(`${origin}${DIRECTORY_PATH}`, { headers: { accept: 'application/http-message-signatures-directory+json, application/json' } }, this.deps.fetch);
    } catch (err) {
      throw new DirectoryUnavailable(`the key directory of ${origin} could not be read: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (res.status !== 200) throw new DirectoryUnavailable(`the key directory of ${origin} answered ${res.status}`);
    let body: unknown;
    try {
      body = JSON.parse(res.text());
    } catch {
      throw new DirectoryUnavailable(`the key directory of ${origin} is not JSON`);
    }
    const list = (body as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(list)) throw new DirectoryUnavailable(`the key directory of ${origin} is not a JWKS ({"keys": [...]})`);
    const keys = list
      .slice(0, 100)
      .map((k) => readPublicJwk(k))
      .flatMap((r) => ('jwk' in r ? [r.jwk] : []));
    const ttl = Math.max(this.deps.minCacheSeconds, cacheSeconds(res.headers['cache-control'], this.deps.maxCacheSeconds));
    if (ttl > 0) await this.#set(`keydir:${origin}`, JSON.stringify(keys), ttl * 1000);
    return keys;
  }

  /** The kv's value, or where the kv cannot be read, this process's own. */
  async #get(key: string, now: number): Promise<string | null> {
    try {
      return await this.deps.kv.get(key, now);
    } catch {
      const local = this.#local.get(key);
      return local && local.until > now ? local.value : null;
    }
  }

  async #set(key: string, value: string, ttlMs: number): Promise<void> {
    const now = this.deps.clock.now();
    if (this.deps.localEntries > 0) {
      this.#local.delete(key);
      this.#local.set(key, { value, until: now + ttlMs });
      if (this.#local.size > this.deps.localEntries) this.#local.delete(this.#local.keys().next().value!);
    }
    await this.deps.kv.set(key, value, ttlMs, now).catch(() => undefined);
  }
}
