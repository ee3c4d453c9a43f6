/**
 * Live topic counts through the read cache. Every search shows the live counts of its hits'
 * topics, and counting a topic reads each of its live rows. Each slug's count is kept on its
 * own, as exactly as any cached answer (read-cache.ts): until a write or until any live object
 * expires. Searches ask for ever new sets of the same few topics, so a set is mostly answered
 * from slugs counted before; the slugs it misses are counted in one store query.
 */
import type { LiveCriteria } from '../domain/model.js';
import type { ObjectStore, TopicCount } from '../ports/object-store.js';
import type { ReadCache } from './read-cache.js';

export type TopicCounter = (live: LiveCriteria, slugs: readonly string[]) => Promise<TopicCount[]>;

export function cachedTopicCounts(cache: ReadCache, objects: Pick<ObjectStore, 'topicCounts'>): TopicCounter {
  return async (live, slugs) => {
    const wanted = [...new Set(slugs)];
    // A space's counts are its own: the scope is part of the key.
    const keyOf = (slug: string) => `topic-count ${live.space ?? ''} ${slug}`;
    const slugOf = new Map(wanted.map((slug) => [keyOf(slug), slug]));
    const found = await cache.many([...slugOf.keys()], async (missing) => {
      const counted = new Map((await objects.topicCounts(live, missing.map((k) => slugOf.get(k)!))).map((t) => [t.slug, t.count]));
      return new Map(missing.map((k) => [k, { value: counted.get(slugOf.get(k)!) ?? 0, size: 64 + k.length * 2 }]));
    });
    const counts = wanted.map((slug) => ({ slug, count: found.get(keyOf(slug))! }));
    // As the store answers: slugs with no live object left out, highest count first, then by slug.
    return counts.filter((t) => t.count > 0).sort((a, b) => b.count - a.count || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  };
}
