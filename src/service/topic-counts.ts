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
    // The first slug missed counts every wanted slug at once; the other misses take theirs from it.
    let counted: Promise<Map<string, number>> | undefined;
    const countOf = async (slug: string) => {
      counted ??= objects.topicCounts(live, wanted).then((cs) => new Map(cs.map((t) => [t.slug, t.count])));
      return { value: (await counted).get(slug) ?? 0, size: 64 + slug.length * 2 };
    };
    const counts = await Promise.all(wanted.map(async (slug) => ({ slug, count: await cache.value(`topic-count ${slug}`, () => countOf(slug)) })));
    // As the store answers: slugs with no live object left out, highest count first, then by slug.
    return counts.filter((t) => t.count > 0).sort((a, b) => b.count - a.count || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  };
}
