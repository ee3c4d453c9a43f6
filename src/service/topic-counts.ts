/**
 * Live topic counts through the read cache. Every search shows the live counts of its hits'
 * topics, and counting a topic reads each of its live rows; the same few topics come back
 * search after search. Each count is kept as exactly as a cached answer (read-cache.ts): until
 * a write or until any live object expires.
 */
import type { LiveCriteria } from '../domain/model.js';
import type { ObjectStore, TopicCount } from '../ports/object-store.js';
import type { ReadCache } from './read-cache.js';

export type TopicCounter = (live: LiveCriteria, slugs: readonly string[]) => Promise<TopicCount[]>;

export function cachedTopicCounts(cache: ReadCache, objects: Pick<ObjectStore, 'topicCounts'>): TopicCounter {
  if (!cache.enabled) return (live, slugs) => objects.topicCounts(live, slugs);
  const countOf = async (live: LiveCriteria, slug: string): Promise<number> => {
    const { body } = await cache.read(`topic-count ${slug}`, async () => {
      const [c] = await objects.topicCounts(live, [slug]);
      return { body: String(c?.count ?? 0), shown: [] };
    });
    return Number(body);
  };
  return async (live, slugs) => {
    const counts = await Promise.all(slugs.map((slug) => countOf(live, slug)));
    return slugs
      .map((slug, i) => ({ slug, count: counts[i]! }))
      .filter((t) => t.count > 0)
      .sort((a, b) => b.count - a.count || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  };
}
