import { describe, expect, it } from 'vitest';
import { ReadCache } from './read-cache.js';

/** A cache over a store that never changes and holds nothing that expires: only room evicts. */
function cache(maxBytes: number) {
  let computed: string[] = [];
  const c = new ReadCache({
    store: { changeMark: async () => 'm', objects: { nextExpiry: async () => null } } as never,
    now: () => 0,
    maxBytes,
    expiringFraction: 0.1,
  });
  const read = (key: string) =>
    c.value(key, async () => {
      computed.push(key);
      return { value: key, size: 100 };
    });
  const misses = async (keys: string[]) => {
    computed = [];
    for (const k of keys) await read(k);
    return computed;
  };
  return { misses };
}

describe('ReadCache eviction', () => {
  it('keeps within its room, evicting the least recently used first', async () => {
    // 800 bytes: eight entries of 100.
    const { misses } = cache(800);
    const keys = Array.from({ length: 8 }, (_, i) => `k${i}`);
    expect(await misses(keys)).toEqual(keys);
    expect(await misses(keys)).toEqual([]);
    // k0 is used again, so k1 is the oldest when k8 arrives.
    await misses(['k0', 'k8']);
    expect(await misses(['k0', 'k8', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7'])).toEqual([]);
    expect(await misses(['k1'])).toEqual(['k1']);
  });

  it('evicts in order through long churn, with entries used again between evictions', async () => {
    const { misses } = cache(1000);
    // Room for ten entries; each round adds one, and every third round uses the second oldest
    // again, so the oldest not used since is evicted: far more rounds than the Map holds.
    const live: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const key = `n${i}`;
      expect(await misses([key])).toEqual([key]);
      live.push(key);
      if (live.length > 10) live.shift();
      if (i % 3 === 0 && live.length > 2) {
        // Used again: it moves to the newest end.
        const again = live.splice(1, 1)[0]!;
        expect(await misses([again])).toEqual([]);
        live.push(again);
      }
    }
    expect(await misses(live)).toEqual([]);
  });
});

describe('ReadCache and the store-wide next expiry', () => {
  /** A cache whose store answers nextExpiry only when the test says, counting its reads. */
  function gated() {
    const asked: { resolve: (at: number | null) => void; reject: (e: unknown) => void }[] = [];
    let mark = 'm1';
    const c = new ReadCache({
      store: { changeMark: async () => mark, objects: { nextExpiry: () => new Promise((resolve, reject) => asked.push({ resolve, reject })) } } as never,
      now: () => 0,
      maxBytes: 10_000,
      expiringFraction: 0.1,
    });
    let computed = 0;
    const read = (key: string) =>
      c.value(key, async () => {
        computed++;
        return { value: key, size: 10 };
      });
    return { read, asked, computed: () => computed, write: (m: string) => (mark = m) };
  }
  const settle = () => new Promise((r) => setImmediate(r));

  it('answers a miss without waiting for the next expiry, and keeps it once that is read', async () => {
    const g = gated();
    // Answered while nextExpiry is still unanswered.
    expect(await g.read('a')).toBe('a');
    expect(await g.read('b')).toBe('b');
    // One read for the mark, shared by both answers.
    expect(g.asked).toHaveLength(1);
    g.asked[0]!.resolve(null);
    await settle();
    await g.read('a');
    await g.read('b');
    expect(g.computed()).toBe(2);
    // Once known for the mark, it is not read again.
    await g.read('c');
    expect(g.asked).toHaveLength(1);
  });

  it('keeps nothing when the store cannot tell the next expiry, and reads it again next time', async () => {
    const g = gated();
    expect(await g.read('a')).toBe('a');
    g.asked[0]!.reject(new Error('store down'));
    await settle();
    expect(await g.read('a')).toBe('a');
    expect(g.computed()).toBe(2);
    expect(g.asked).toHaveLength(2);
  });

  it('does not serve what was computed under a mark a write has since moved', async () => {
    const g = gated();
    await g.read('a');
    g.write('m2');
    g.asked[0]!.resolve(null);
    await settle();
    await g.read('a');
    expect(g.computed()).toBe(2);
  });
});
