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

    it('answers ping, and fails once closed', async () => {
      await expect(kv.ping()).resolves.toBeUndefined();
      await kv.close();
      await expect(kv.ping()).rejects.toThrow();
    });
  });
}
