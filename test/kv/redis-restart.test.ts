/**
 * The Redis kv across a crash of its server: commands fail at once while it is down (never
 * hang), and once it is back empty, a claim says that its memory of claims began again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisKv } from '../../src/kv/redis-kv.js';
import { PrivateRedis } from '../helpers/private-redis.js';

describe('RedisKv when its server crashes and comes back empty', () => {
  let redis: PrivateRedis;
  let kv: RedisKv;
  beforeAll(async () => {
    redis = await PrivateRedis.start();
    kv = new RedisKv(redis.url, 'restart-test:');
    await kv.ready();
  });
  afterAll(async () => {
    await kv.close();
    await redis.kill();
  });

  it('refuses claims while down, and after the restart dates its memory of claims from then', async () => {
    const before = Date.now();
    const first = await kv.claim('nonce-1', 60_000, before);
    expect(first.fresh).toBe(true);
    expect(first.since).toBeLessThanOrEqual(before);

    await redis.kill();
    await expect(kv.claim('nonce-2', 60_000, Date.now())).rejects.toThrow();
    const restarted = Date.now();
    await redis.start();
    let again: Awaited<ReturnType<RedisKv['claim']>> | null = null;
    for (let i = 0; i < 100 && !again; i++) {
      again = await kv.claim('nonce-1', 60_000, Date.now()).catch(() => null);
      if (!again) await new Promise((r) => setTimeout(r, 100));
    }
    // The claim made before the crash is forgotten, and the store says so: it remembers from after it.
    expect(again).toMatchObject({ fresh: true });
    expect(again!.since).toBeGreaterThanOrEqual(restarted);
  });
});
