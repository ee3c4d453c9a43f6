import { describe, expect, it } from 'vitest';
import type { LiveCriteria } from '../domain/model.js';
import type { TopicCount } from '../ports/object-store.js';
import { ReadCache } from './read-cache.js';
import { cachedTopicCounts } from './topic-counts.js';

const live: LiveCriteria = { now: 0, disputeMinContradictions: 3 };

function setup(counts: Record<string, number>) {
  const calls: string[][] = [];
  let mark = 1;
  const objects = {
    async topicCounts(_: LiveCriteria, slugs: readonly string[]): Promise<TopicCount[]> {
      calls.push([...slugs]);
      return slugs.filter((s) => (counts[s] ?? 0) > 0).map((slug) => ({ slug, count: counts[slug]! }));
    },
  };
  const store = { changeMark: async () => mark, objects: { nextExpiry: async () => null } };
  const cache = new ReadCache({ store: store as never, now: () => 0, maxBytes: 1 << 20, expiringFraction: 0.1 });
  return { count: cachedTopicCounts(cache, objects), calls, write: () => mark++ };
}

describe('cachedTopicCounts', () => {
  it('answers as the store does: no empty slug, highest first, then by slug', async () => {
    const t = setup({ b: 2, a: 2, c: 5, none: 0 });
    expect(await t.count(live, ['b', 'none', 'a', 'c', 'a'])).toEqual([
      { slug: 'c', count: 5 },
      { slug: 'a', count: 2 },
      { slug: 'b', count: 2 },
    ]);
    expect(t.calls).toEqual([['b', 'none', 'a', 'c']]);
  });

  it('keeps each slug: a new set counts only the slugs it misses, in one store query', async () => {
    const t = setup({ a: 1, b: 2, c: 3 });
    await t.count(live, ['a', 'b']);
    await t.count(live, ['b', 'a']);
    expect(t.calls).toHaveLength(1);
    expect(await t.count(live, ['b', 'c'])).toEqual([
      { slug: 'c', count: 3 },
      { slug: 'b', count: 2 },
    ]);
    expect(t.calls).toHaveLength(2);
    await t.count(live, ['a', 'b', 'c']);
    expect(t.calls).toHaveLength(2);
    t.write();
    await t.count(live, ['a', 'c']);
    expect(t.calls).toEqual([['a', 'b'], ['c'], ['a', 'c']]);
  });
});
