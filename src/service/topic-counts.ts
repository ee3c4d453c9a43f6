/**
 * Live topic counts through the read cache. Every search shows the live counts of its hits'
 * topics, and counting a topic reads each of its live rows; the same sets of topics come back
 * search after search. An answer is kept, under its set of slugs, as exactly as any cached
 * answer (read-cache.ts): until a write or until any live object expires. A miss is the
 * store's one query, in the store's order.
 */
import type { LiveCriteria } from '../domain/model.js';
import type { ObjectStore, TopicCount } from '../ports/object-store.js';
import type { ReadCache } from './read-cache.js';

export type TopicCounter = (live: LiveCriteria, slugs: readonly string[]) => Promise<TopicCount[]>;

export function cachedTopicCounts(cache: ReadCache, objects: Pick<ObjectStore, 'topicCounts'>): TopicCounter {
  return async (live, slugs) => {
    const key = `topic-counts ${JSON.stringify([...slugs].sort())}`;
    const { body } = await cache.read(key, async () => ({ body: JSON.stringify(await objects.topicCounts(live, slugs)), shown: [] }));
    return JSON.parse(body) as TopicCount[];
  };
}
