/**
 * Search over live objects: one function taking `{ q, filters, limit, mode }`. The lexical leg
 * comes from the store's full-text index, the semantic leg from the query's embedding and the
 * store's vectors; ranking.ts turns both into one order. A leg that cannot run (no embedder,
 * no vector support, over its time budget) is reported in `degraded`, never as an error.
 */
import type { Logger } from 'pino';
import type { BoardLimits } from '../../domain/limits.js';
import type { ObjectType, TrustLevel } from '../../domain/model.js';
import type { LiveCriteria, StoredObject } from '../../domain/model.js';
import { stateOf } from '../../domain/state.js';
import type { Clock } from '../../ports/clock.js';
import type { Embedder } from '../../ports/embedder.js';
import type { TopicCount } from '../../ports/object-store.js';
import type { LexicalHit, LexicalQuery, SemanticHit, SemanticQuery } from '../../ports/search-index.js';
import type { Store } from '../../ports/store.js';
import type { TopicCounter } from '../topic-counts.js';
import { candidatesOf, rank, type Ranked } from './candidates.js';
import { queryTerms, snippet } from './text-match.js';
import { RecentKeys } from './recent-keys.js';
import { embedWithin } from './embed-within.js';
import { bestFirst } from './best-first.js';
import { CORRECTION_ROUNDS, CorrectionsFirst } from './corrections-first.js';

export type SearchMode = 'hybrid' | 'lexical' | 'semantic';
export type Leg = 'lexical' | 'semantic';

export interface SearchQuery {
  q: string;
  types?: readonly ObjectType[];
  topics?: readonly string[];
  /** Only objects whose author shows at least this trust (domain/trust.ts). */
  minTrust?: TrustLevel;
  mode: SearchMode;
  limit: number;
  /** The one space searched, its grant already checked (service/visibility.ts); absent or null: the commons. */
  space?: string | null;
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
  log: Logger;
  /** Null when EMBEDDINGS=none. */
  embedder: Embedder | null;
  /** How long the query embedding may take before the answer goes out lexically. */
  semanticBudgetMs: number;
  /** Live counts of topics (the store's, or cached ones). */
  topicCounts: TopicCounter;
  /** Keeps both legs' candidates and the page's objects while exact (the read cache); absent, every search reads the store. */
  memo?: Memo;
}

interface Kept<V> {
  value: V;
  /** Room it takes, roughly; null keeps nothing. */
  size: number | null;
}

/**
 * Values computed or kept: kept only while no write has landed and no live object has expired
 * since they were computed (service/read-cache.ts). `many` computes the keys it misses at once.
 */
export interface Memo {
  value<V>(key: string, compute: () => Promise<Kept<V>>): Promise<V>;
  many<V>(keys: readonly string[], compute: (missing: string[]) => Promise<Map<string, Kept<V>>>): Promise<Map<string, V>>;
}

/** Keeps nothing: every value is computed. */
const COMPUTE_ALWAYS: Memo = {
  value: async (_, compute) => (await compute()).value,
  many: async (keys, compute) => new Map([...(await compute([...keys]))].map(([k, kept]) => [k, kept.value])),
};

/** Room a kept object takes, roughly. */
const objectSize = (o: StoredObject): number => 400 + 2 * (o.title.length + o.content.length + o.topics.join().length + (o.sourceUrl?.length ?? 0));

/** Room a kept lexical answer takes, roughly: its fields, and a phrase hit's texts. */
const lexicalSize = (hits: readonly LexicalHit[]): number =>
  hits.reduce((n, h) => n + 160 + 2 * (h.id.length + (h.text ? h.text.title.length + h.text.content.length : 0)), 64);



export class Searcher {
  #lastSemanticError: string | undefined;
  readonly #memo: Memo;
  /** The legs asked for before: a leg is kept only when its search comes again (recent-keys.ts). */
  readonly #asked = new RecentKeys();

  constructor(private readonly deps: SearchDeps) {
    this.#memo = deps.memo ?? COMPUTE_ALWAYS;
  }

  /** Whether the semantic leg can run at all, and why not. */
  semanticStatus(): { available: true } | { available: false; reason: string } {
    if (!this.deps.embedder) return { available: false, reason: 'EMBEDDINGS=none' };
    return this.deps.store.capabilities.vectors;
  }

  async search(query: SearchQuery): Promise<SearchOutcome> {
    const { limits } = this.deps;
    const live: LiveCriteria = { now: this.deps.clock.now(), disputeMinContradictions: limits.disputeMinContradictions, space: query.space ?? null };
    const filters = {
      ...(query.types?.length ? { types: query.types } : {}),
      ...(query.topics?.length ? { topics: query.topics } : {}),
      ...(query.minTrust ? { minTrust: query.minTrust } : {}),
    };
    const terms = queryTerms(query.q);
    const perLeg = Math.max(limits.search.candidates, query.limit);

    const semanticWanted = query.mode !== 'lexical';
    // Hybrid looks for meaning, so its lexical leg matches word stems; mode=lexical matches words as given.
    const lexicalQuery = { live, terms, ...filters, limit: perLeg, window: Math.max(limits.search.lexicalWindow, perLeg), stemmed: query.mode === 'hybrid' };
    // The embedding starts first, so the lexical query runs while it is in flight.
    const semanticEarly = semanticWanted ? this.#semanticLeg(query.q, filters, perLeg, live) : Promise.resolve(null);
    const lexicalEarly = query.mode !== 'semantic' ? this.#lexicalLeg(lexicalQuery, query) : undefined;
    // Awaited only after the semantic leg: a failure meanwhile (the database out of reach) would
    // be an unhandled rejection, which ends the process. It still fails the search where awaited.
    lexicalEarly?.catch(() => undefined);
    const semantic = await semanticEarly;
    const semanticRan = semantic !== null;
    // Without a semantic leg, mode=semantic answers lexically (and says so in degraded).
    const lexicalRuns = query.mode !== 'semantic' || !semanticRan;
    const lexHits = lexicalRuns ? await (lexicalEarly ?? this.#lexicalLeg(lexicalQuery, query)) : [];

    const candidates = candidatesOf(query.q, lexHits, semantic?.hits ?? [], limits.search);
    const ranked = rank(candidates, { lexicalRuns, semanticRan, now: live.now }, limits.search);
    const page = await this.#read(ranked, query.limit, live, { ...query, terms });

    // Settings at their extremes (a freshness floor of 0) can leave even the best at 0.
    const best = page[0]?.final || 1;
    const hits: SearchHit[] = page.map(({ c, final, object }) => ({
      object,
      score: Math.round((final / best) * 1e6) / 1e6,
      matchedBy: [...(c.lexical ? (['lexical'] as const) : []), ...(c.semantic ? (['semantic'] as const) : [])],
      snippet: snippet(object.content, query.q, limits.search.snippetChars),
    }));

    const degraded: Leg[] = semanticWanted && !semanticRan ? ['semantic'] : [];
    const related = hits.length
      ? await this.#relatedFromHits(live, hits, query.topics ?? [])
      : await this.#relatedToQuery(live, terms, semantic?.vector ?? null);
    return { hits, related, degraded };
  }

  /**
   * The page, with every result ranked below the live corrections named for it that matched
   * too (corrections-first.ts): a result moved down may leave the page, and the page is read again.
   */
  async #read(ranked: Ranked[], limit: number, live: LiveCriteria, query: SearchQuery & { terms: string[] }): Promise<(Ranked & { object: StoredObject })[]> {
    let rule: CorrectionsFirst | undefined;
    for (let round = 0; ; round++) {
      const page = await this.#readPage(ranked, limit, live);
      if (round === CORRECTION_ROUNDS || !page.some((p) => p.object.corrections.length)) return page;
      rule ??= new CorrectionsFirst(ranked, query);
      const unranked = rule.unranked(page);
      if (unranked.length) for (const o of (await this.#objects(unranked, live)).values()) if (o && o.space === (live.space ?? null) && stateOf(o, live) === 'live') rule.admit(o);
      if (!rule.apply(page)) return page;
    }
  }

  /**
   * The ranked candidates' objects, read in full for the page only, best first (ordered only as
   * far as they are read). One that stopped being live after it was ranked (a concurrent hide or
   * vote) gives way to the next.
   */
  async #readPage(ranked: Ranked[], limit: number, live: LiveCriteria): Promise<(Ranked & { object: StoredObject })[]> {
    const page: (Ranked & { object: StoredObject })[] = [];
    const best = bestFirst(ranked, limit, (a, b) => b.final - a.final || (a.c.facts.id < b.c.facts.id ? 1 : -1));
    for (let from = 0; page.length < limit && from < ranked.length; ) {
      const slice = best(from, from + limit - page.length);
      from += slice.length;
      const read = await this.#objects(slice.map((r) => r.c.facts.id), live);
      for (const r of slice) {
        const object = read.get(r.c.facts.id);
        // A literal of three fields: a spread of the entry was a slow path of the profile. Only
        // the scope searched is shown, whatever a leg answered.
        if (object && object.space === (live.space ?? null) && stateOf(object, live) === 'live') page.push({ c: r.c, final: r.final, object });
      }
    }
    return page;
  }

  /**
   * Objects by id, read in full (kept while exact: an object's row, reply count and author's
   * standing move only with writes and expiries); an id read as nothing maps to null.
   */
  async #objects(ids: readonly string[], live: LiveCriteria): Promise<Map<string, StoredObject | null>> {
    const kept = await this.#memo.many(
      ids.map((id) => `object ${id}`),
      async (missing) => {
        const found = new Map((await this.deps.store.objects.getMany(missing.map((k) => k.slice('object '.length)), live)).map((o) => [`object ${o.id}`, o]));
        return new Map(missing.map((k) => [k, { value: found.get(k) ?? null, size: found.has(k) ? objectSize(found.get(k)!) : 64 }]));
      },
    );
    return new Map(ids.map((id) => [id, kept.get(`object ${id}`) ?? null]));
  }

  /**
   * The lexical leg's candidates, kept while exact: they depend only on what is stored and on
   * which objects are live, never on the time otherwise (freshness is weighed afterwards, at
   * each search). Kept from the second time the same leg is looked for on: a search asked
   * once keeps nothing. In lexical mode the page size decides when the AND answer is enough.
   */
  #lexicalLeg(q: LexicalQuery, query: SearchQuery): Promise<LexicalHit[]> {
    const enough = query.mode === 'lexical' ? query.limit : q.limit;
    const key = `lexical-leg ${JSON.stringify([q.live.space ?? null, q.terms, q.stemmed ?? false, q.types ?? [], q.topics ?? [], q.minTrust ?? null, q.limit, enough])}`;
    const compute = async () => {
      const hits = await this.#lexical(q, enough, query.limit);
      return { value: hits, size: this.#asked.seenBefore(key) ? lexicalSize(hits) : null };
    };
    return this.#memo.value(key, compute);
  }

  /**
   * The lexical leg, AND before OR. In lexical mode every all-terms match outranks every
   * partial one (tier), so when the AND query alone fills the page the OR query cannot change
   * the answer. In hybrid mode, an AND query that fills the whole candidate list already holds
   * the best lexical candidates. Either way the costly OR scoring of common words is skipped.
   * A page the AND query fills wherever its words are common enough to cost anything, so it runs
   * first, and one short of the page matched few objects and cost little. A whole candidate list
   * it seldom fills: there the index's count decides first, and a short count sends the OR query
   * alone, which marks its hits itself. When both run, the AND answer is every live object
   * holding all the terms, so it marks the OR hits (the store need not work the marks out
   * again) and brings back any the OR query's window left out.
   */
  async #lexical(q: LexicalQuery, enough: number, page: number): Promise<LexicalHit[]> {
    // The OR query's window is shared among its terms (each term's newest matches, never fewer
    // than the candidates): a query of many common words ranks as many matches as one of two.
    const any = { ...q, ...(q.window === undefined ? {} : { window: Math.max(Math.ceil(q.window / Math.max(1, q.terms.length)), q.limit) }) };
    if (q.terms.length < 2) return this.deps.store.search.lexical(any);
    if (enough > page && (await this.deps.store.search.allTermsCount(q, enough)) < enough) return this.deps.store.search.lexical(any);
    const all = await this.deps.store.search.lexical({ ...q, allTerms: true });
    // q.limit ≥ enough (the leg never ranks fewer than the page), so short of enough the AND
    // answer is every live object holding all the terms.
    if (all.length >= enough) return all;
    const marked = new Map(all.map((h) => [h.id, h]));
    const hits = (await this.deps.store.search.lexical({ ...any, unmarked: true })).map((h) => {
      const m = marked.get(h.id);
      marked.delete(h.id);
      return m ? { ...h, allTerms: true, phrase: m.phrase, ...(m.text ? { text: m.text } : {}) } : h;
    });
    // An object holding every term that the OR query left out (older than its window, or below
    // its cut) still comes in: a match scores alike in either query, and outranks partial ones.
    return marked.size ? [...hits, ...marked.values()].sort((a, b) => b.relevance - a.relevance) : hits;
  }

  /**
   * The semantic leg: the query's vector and its nearest live objects under the filters; null
   * when the leg cannot run or misses its time budget (never kept: the next search tries again).
   * Kept while exact, and from its second asking on, as the lexical leg is: the stores move the
   * change mark with every vector written or taken in, as with every other write.
   */
  #semanticLeg(q: string, filters: Pick<SemanticQuery, 'types' | 'topics' | 'minTrust'>, limit: number, live: LiveCriteria): Promise<{ vector: Float32Array; hits: SemanticHit[] } | null> {
    const key = `semantic-leg ${JSON.stringify([live.space ?? null, this.deps.embedder?.model, q, filters.types ?? [], filters.topics ?? [], filters.minTrust ?? null, limit])}`;
    const compute = async () => {
      const vector = await this.#queryVector(q);
      if (!vector) return { value: null, size: null };
      const hits = await this.deps.store.search.semantic({ live, vector, model: this.deps.embedder!.model, ...filters, limit });
      return { value: { vector, hits }, size: this.#asked.seenBefore(key) ? 64 + vector.length * 4 + hits.reduce((n, h) => n + 120 + h.id.length * 2, 0) : null };
    };
    return this.#memo.value(key, compute);
  }

  /** The query's vector, or null when the leg cannot run or misses its time budget. */
  async #queryVector(q: string): Promise<Float32Array | null> {
    const status = this.semanticStatus();
    if (!status.available) return null;
    try {
      const result = await embedWithin(this.deps.embedder!, [q], this.deps.semanticBudgetMs, 'semantic budget exceeded');
      if (!result) return null;
      this.#lastSemanticError = undefined;
      return result[0] ?? null;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== this.#lastSemanticError) this.deps.log.warn({ err: message }, 'query embedding failed; answering lexically');
      this.#lastSemanticError = message;
      return null;
    }
  }

  /** Topics carried by the results (besides the filter), with their live counts, highest first. */
  async #relatedFromHits(live: LiveCriteria, hits: SearchHit[], exclude: readonly string[]): Promise<TopicCount[]> {
    const slugs = new Set<string>();
    for (const h of hits) for (const t of h.object.topics) if (!exclude.includes(t)) slugs.add(t);
    const counts = await this.deps.topicCounts(live, [...slugs]);
    return counts.slice(0, this.deps.limits.relatedTopicsMax);
  }

  /**
   * For an empty answer: topics whose slug holds a query word, then the topics of the objects
   * nearest in meaning to the query (filters aside), so the caller has something to retry with.
   */
  async #relatedToQuery(live: LiveCriteria, terms: string[], vector: Float32Array | null): Promise<TopicCount[]> {
    const max = this.deps.limits.relatedTopicsMax;
    const byName = await this.deps.store.objects.topicsLike(live, terms, max);
    if (byName.length >= max || !vector) return byName;
    const near = await this.deps.store.search.semantic({ live, vector, model: this.deps.embedder!.model, limit: 10 });
    const objects = await this.deps.store.objects.getMany(near.map((h) => h.id), live);
    const seen = new Set(byName.map((t) => t.slug));
    const slugs = [...new Set(objects.flatMap((o) => o.topics))].filter((s) => !seen.has(s));
    const counts = await this.deps.topicCounts(live, slugs);
    return [...byName, ...counts].slice(0, max);
  }
}
