/** The Kv contract: every adapter runs it through its own runner file. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Kv } from '../../src/ports/kv.js';

export function runKvContract({ name, makeKv }: { name: string; makeKv: () => Promise<Kv> }): void {
  describe(`Kv contract: ${name}`, () => {
    let kv: Kv;
    beforeEach(async () => {
      kv = await makeKv();
    });
    afterEach(async () => kv.close());

    it('counts hits in fixed windows', async () => {
      const t = 1_700_000_000_000;
      const a = await kv.hit('k', 60_000, t);
      const b = await kv.hit('k', 60_000, t + 10);
      expect(a.count).toBe(1);
      expect(b.count).toBe(2);
      expect(a.resetAt).toBe(t - (t % 60_000) + 60_000);
      expect((await kv.hit('other', 60_000, t)).count).toBe(1);
      expect((await kv.hit('k', 60_000, a.resetAt)).count).toBe(1);
    });

    it('stores values with a lifetime', async () => {
      const now = Date.now();
      expect(await kv.get('missing', now)).toBeNull();
      await kv.set('v', 'hello', 60_000, now);
      expect(await kv.get('v', now)).toBe('hello');
    });

    it('grants a lock to one owner at a time, renews it for its holder, and frees it', async () => {
      const now = Date.now();
      const key = `lock-${Math.random()}`;
      expect(await kv.lock(key, 'a', 60_000, now)).toBe(true);
      expect(await kv.lock(key, 'b', 60_000, now)).toBe(false);
      expect(await kv.lock(key, 'a', 60_000, now + 1)).toBe(true);
      await kv.unlock(key, 'b');
      expect(await kv.lock(key, 'b', 60_000, now)).toBe(false);
      await kv.unlock(key, 'a');
      expect(await kv.lock(key, 'b', 60_000, now)).toBe(true);
      await kv.unlock(key, 'b');
    });

    it('lets a lock lapse after its lifetime', async () => {
      const key = `lapse-${Math.random()}`;
      const now = Date.now();
      expect(await kv.lock(key, 'a', 30, now)).toBe(true);
      await new Promise((r) => setTimeout(r, 80));
      expect(await kv.lock(key, 'b', 60_000, Date.now())).toBe(true);
      await kv.unlock(key, 'b');
    });

    it('claims a key once until its lifetime ends, and says since when it remembers claims', async () => {
      const now = Date.now();
      const key = `claim-${Math.random()}`;
      const first = await kv.claim(key, 60_000, now);
      expect(first.fresh).toBe(true);
      expect(first.since).toBeLessThanOrEqual(now);
      expect(await kv.claim(key, 60_000, now + 1)).toEqual({ fresh: false, since: first.since });
      expect(await kv.claim(`${key}-other`, 60_000, now)).toEqual({ fresh: true, since: first.since });
      const brief = `brief-${Math.random()}`;
      expect((await kv.claim(brief, 30, Date.now())).fresh).toBe(true);
      await new Promise((r) => setTimeout(r, 80));
      expect((await kv.claim(brief, 60_000, Date.now())).fresh).toBe(true);
    });

    it('answers ping, and fails once closed', async () => {
      await expect(kv.ping()).resolves.toBeUndefined();
      await kv.close();
      await expect(kv.ping()).rejects.toThrow();
    });
  });
}
