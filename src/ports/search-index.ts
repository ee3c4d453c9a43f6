/**
 * The search half of the Store port: the candidates of the two legs, over live objects only.
 * A candidate carries what ranking reads, not the whole object: the searcher ranks up to a few
 * hundred candidates and reads in full only the page it answers (ObjectStore.getMany).
 */
import type { LiveCriteria, ObjectType, StoredObject, TrustLevel } from '../domain/model.js';

/** When the in-memory vectors of one model are scored through the approximate index. */
export interface VectorIndexSettings {
  /** From this many vectors of a model on, a query scores only the nearest lists' vectors. */
  approximateFrom: number;
  /** How many lists a query scores. */
  probes: number;
}

/** What ranking reads of a candidate. */
export type CandidateFacts = Pick<StoredObject, 'id' | 'createdAt' | 'verificationCount' | 'contradictionCount'>;

export interface LexicalQuery {
  live: LiveCriteria;
  /** Lowercased word tokens of the query, in order. */
  terms: string[];
  types?: readonly ObjectType[];
  topics?: readonly string[];
  /** Only objects whose author shows at least this trust (domain/trust.ts). */
  minTrust?: TrustLevel;
  limit: number;
  /**
   * Rank only the newest `window` matching objects (live, under the filters); for a query that
   * need not hold every term, the newest `window` of each term's, so that a rare word's matches
   * are all in. Absent, every match. On a large board common words match a large share of it:
   * the newest few hundred keep a search's cost bounded, and ranking weighs freshness anyway.
   */
  window?: number;
  /** Match word stems (connect ~ connections) instead of words as given. */
  stemmed?: boolean;
  /** Only objects holding every term (an AND query, far cheaper than OR on common words). */
  allTerms?: boolean;
  /**
   * Leave `allTerms` and `phrase` false on every hit (an OR query's caller that already knows
   * the complete AND set): working them out costs more than the rest of the query.
   */
  unmarked?: boolean;
}

export interface LexicalHit extends CandidateFacts {
  /** Relevance from the full-text index; higher is better, only comparable within one answer. */
  relevance: number;
  /** The object holds every query term (as the full-text tokenizer sees words). */
  allTerms: boolean;
  /** The object holds the query terms as one phrase, adjacent and in order. */
  phrase: boolean;
  /** A phrase hit's title and content, which the searcher compares with the query verbatim. */
  text?: Pick<StoredObject, 'title' | 'content'>;
}

export interface SemanticQuery {
  live: LiveCriteria;
  vector: Float32Array;
  model: string;
  types?: readonly ObjectType[];
  topics?: readonly string[];
  /** Only objects whose author shows at least this trust (domain/trust.ts). */
  minTrust?: TrustLevel;
  limit: number;
}

export interface SemanticHit extends CandidateFacts {
  /** Cosine similarity to the query, in [-1, 1]. */
  similarity: number;
}

export interface SearchIndex {
  /** Full-text candidates over live objects (title > topics > content), best first. */
  lexical(q: LexicalQuery): Promise<LexicalHit[]>;
  /**
   * How many objects hold every one of `terms` (live or not, filters aside, words as given or
   * stems), counted no further than `upTo` (a store may count further): an upper bound on the
   * AND query's answer, far cheaper than that query. Only whether `upTo` is reached matters, so a
   * store that knows without counting that fewer hold them all may answer that bound instead.
   * `window` is the AND query's, which a store may plan the count by.
   */
  allTermsCount(q: Pick<LexicalQuery, 'terms' | 'stemmed' | 'window'>, upTo: number): Promise<number>;
  /**
   * The nearest live objects by cosine similarity under the filters, best first; none without
   * vectors. Vectors held in memory as bytes answer similarities to within about 0.001, and on a
   * large board the nearest may come from an approximate index (pgvector's HNSW, or the lists of
   * the vectors held in memory), whose recall `npm run bench:search` measures.
   */
  semantic(q: SemanticQuery): Promise<SemanticHit[]>;
}
