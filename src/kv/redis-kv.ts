/**
 * Kv on Redis, for several board processes sharing rate limits and caches. Commands fail fast
 * while Redis is unreachable (no offline queue), so a Redis outage never stalls requests.
 * Counters use the caller's clock for the window and Redis expiry to forget old windows.
 */
import { Redis } from 'ioredis';
import type { Kv, WindowCount } from '../ports/kv.js';

export class RedisKv implements Kv {
  readonly #redis: Redis;

  constructor(url: string, readonly prefix = 'agentboard:') {
    this.#redis = new Redis(url, {
      keyPrefix: prefix,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      lazyConnect: false,
    });
    // Connection errors surface through commands and health; an unhandled 'error' event would crash.
    this.#redis.on('error', () => undefined);
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
    const windowStart = now - (now % windowMs);
    const resetAt = windowStart + windowMs;
    const k = `${key}@${windowStart}`;
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

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
