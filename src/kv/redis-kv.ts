/**
 * Kv on Redis, for several board processes sharing rate limits and caches. Commands fail fast
 * while Redis is unreachable (no offline queue), so a Redis outage never stalls requests.
 * Counters use the caller's clock for the window and Redis expiry to forget old windows.
 */
import { Redis } from 'ioredis';
import { fixedWindow } from '../domain/rate-window.js';
import type { Claim, Kv, WindowCount } from '../ports/kv.js';

/** Take or renew: set when free, extend when the caller holds it, refuse otherwise — atomically. */
const LOCK_SCRIPT = `local v = redis.call('GET', KEYS[1])
if v == false then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0`;
/**
 * Claim once: NX, and the instant this dataset began remembering claims. Each connection sets it
 * when it becomes ready, unless it is set (#markSince); a Redis that restarts empty loses it with
 * the claims, and the reconnecting instances set it anew. It never expires, so only losing the
 * data removes it; a claim that finds it missing (a race with a reconnect) sets it itself.
 */
const CLAIM_SCRIPT = `local since = redis.call('GET', KEYS[2])
if since == false then redis.call('SET', KEYS[2], ARGV[2]) since = ARGV[2] end
local fresh = redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1])
if fresh then return {1, since} end
return {0, since}`;
/** The key that holds since when the dataset remembers claims. */
const CLAIMS_SINCE = 'claims-since';
const UNLOCK_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export class RedisKv implements Kv {
  readonly #redis: Redis;

  /** `now`: the board's clock, which dates the dataset's memory of claims as callers date their claims. */
  constructor(
    url: string,
    readonly prefix = 'agentboard:',
    private readonly now: () => number = Date.now,
  ) {
    this.#redis = new Redis(url, {
      keyPrefix: prefix,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      lazyConnect: false,
    });
    // Connection errors surface through commands and health; an unhandled 'error' event would crash.
    this.#redis.on('error', () => undefined);
    this.#redis.on('ready', () => this.#markSince());
  }

  /** Resolves once connected (or rejects after the connect timeout). */
  async ready(): Promise<void> {
    if (this.#redis.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('redis did not become ready')), 3000);
      this.#redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async hit(key: string, windowMs: number, now: number): Promise<WindowCount> {
    const { counterKey: k, resetAt } = fixedWindow(key, windowMs, now);
    const results = await this.#redis.multi().incr(k).pexpire(k, windowMs).exec();
    const [err, count] = results?.[0] ?? [new Error('redis transaction failed'), 0];
    if (err) throw err;
    return { count: Number(count), resetAt };
  }

  async get(key: string): Promise<string | null> {
    return this.#redis.get(key);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.#redis.set(key, value, 'PX', Math.max(1, Math.round(ttlMs)));
  }

  async lock(key: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.#redis.eval(LOCK_SCRIPT, 1, key, owner, String(Math.max(1, Math.round(ttlMs))))) === 1;
  }

  async claim(key: string, ttlMs: number, now: number): Promise<Claim> {
    const [fresh, since] = (await this.#redis.eval(CLAIM_SCRIPT, 2, key, CLAIMS_SINCE, String(Math.max(1, Math.round(ttlMs))), String(now))) as [number, string];
    return { fresh: fresh === 1, since: Number(since) };
  }

  /** Dates this dataset's memory of claims from now, unless it is dated already. */
  #markSince(): void {
    this.#redis.set(CLAIMS_SINCE, String(this.now()), 'NX').catch(() => undefined);
  }

  async unlock(key: string, owner: string): Promise<void> {
    await this.#redis.eval(UNLOCK_SCRIPT, 1, key, owner);
  }

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
