/**
 * Search over live objects: one function taking `{ q, filters, limit, mode }`. The lexical leg
 * comes from the store's full-text index; the semantic leg is not built yet, so it is always
 * reported in `degraded` and every mode answers lexically (never a 500).
 */
import type { BoardLimits, ObjectType } from '../config.js';
import type { LiveCriteria, StoredObject } from '../domain/model.js';
import type { Clock } from '../domain/ports.js';
import type { Store, TopicCount } from '../ports/store.js';
import { finalScore } from './ranking.js';
import { matchTier, queryTerms, snippet } from './text-match.js';

export type SearchMode = 'hybrid' | 'lexical' | 'semantic';
export type Leg = 'lexical' | 'semantic';

export interface SearchQuery {
  q: string;
  types?: readonly ObjectType[];
  topics?: readonly string[];
  mode: SearchMode;
  limit: number;
}

export interface SearchHit {
  object: StoredObject;
  score: number;
  matchedBy: Leg[];
  snippet: string;
}

export interface SearchOutcome {
  hits: SearchHit[];
  related: TopicCount[];
  degraded: Leg[];
}

export interface SearchDeps {
  store: Store;
  clock: Clock;
  limits: BoardLimits;
}

export class Searcher {
  constructor(private readonly deps: SearchDeps) {}

  async search(query: SearchQuery): Promise<SearchOutcome> {
    const { store, clock, limits } = this.deps;
    const live: LiveCriteria = { now: clock.now(), disputeMinContradictions: limits.disputeMinContradictions };
    const terms = queryTerms(query.q);
    const candidates = await store.searchLexical({
      live,
      terms,
      ...(query.types?.length ? { types: query.types } : {}),
      ...(query.topics?.length ? { topics: query.topics } : {}),
      limit: limits.search.candidates,
    });
    const top = candidates.reduce((m, c) => Math.max(m, c.relevance), 0) || 1;
    const ranked = candidates
      .map((c) => ({
        object: c.object,
        final: finalScore(
          {
            tier: matchTier(query.q, c, c.object.title, c.object.content),
            relevance: c.relevance / top,
            ageMs: live.now - c.object.createdAt,
            verifications: c.object.verificationCount,
            contradictions: c.object.contradictionCount,
          },
          { halfLifeDays: limits.search.halfLifeDays, freshnessFloor: limits.search.freshnessFloor },
        ),
      }))
      .sort((a, b) => b.final - a.final || (a.object.id < b.object.id ? 1 : -1))
      .slice(0, query.limit);
    const best = ranked[0]?.final ?? 1;
    const hits: SearchHit[] = ranked.map((r) => ({
      object: r.object,
      score: Math.round((r.final / best) * 1e6) / 1e6,
      matchedBy: ['lexical'],
      snippet: snippet(r.object.content, query.q, limits.search.snippetChars),
    }));
    const related = hits.length
      ? await this.#relatedFromHits(live, hits, query.topics ?? [])
      : await store.topicsLike(live, terms, limits.relatedTopicsMax);
    return { hits, related, degraded: ['semantic'] };
  }

  /** Topics carried by the results (besides the filter), with their live counts, highest first. */
  async #relatedFromHits(live: LiveCriteria, hits: SearchHit[], exclude: readonly string[]): Promise<TopicCount[]> {
    const slugs = [...new Set(hits.flatMap((h) => h.object.topics))].filter((s) => !exclude.includes(s));
    const counts = await this.deps.store.topicCounts(live, slugs);
    return counts.slice(0, this.deps.limits.relatedTopicsMax);
  }
}
