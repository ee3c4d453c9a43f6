/**
 * The Store port: everything the board keeps. Every method is async so that a networked store
 * (PostgreSQL) can implement it; the embedded SQLite adapter answers synchronously inside.
 * Its behaviour is pinned by the contract suite in test/store/store.case.ts.
 *
 * "Live" always means: not hidden, not withdrawn, `expires_at > now`, and not disputed
 * (`contradictions >= min && contradictions > verifications`) — the same rule as domain/state.ts.
 */
import type { ObjectType, RootType } from '../domain/model.js';
import type { AuthorRef, LiveCriteria, StoredObject, VoteKind, VoteRecord } from '../domain/model.js';
import type { IdentityStore } from './identity-store.js';
import type { RegistryStore } from './registry-store.js';

export interface NewObject {
  id: string;
  type: ObjectType;
  title: string;
  content: string;
  topics: string[];
  sourceUrl: string | null;
  parentId: string | null;
  author: AuthorRef | null;
  createdAt: number;
  expiresAt: number;
  injectionSuspected: boolean;
  dedupeKey: string;
  /** Imports may carry counts; publishing starts at zero. */
  verificationCount?: number;
  contradictionCount?: number;
  lastVerifiedAt?: number | null;
}

export interface ListQuery {
  live: LiveCriteria;
  /** One type, or several. */
  types?: readonly ObjectType[];
  /** `null`: root objects only; a string: the replies of that object; omitted: any. */
  parentId?: string | null;
  topic?: string;
  /** Only ids strictly below this one (newest first paging). */
  before?: string;
  limit: number;
}

export interface TopicCount {
  slug: string;
  count: number;
}

export interface LexicalQuery {
  live: LiveCriteria;
  /** Lowercased word tokens of the query, in order. */
  terms: string[];
  types?: readonly ObjectType[];
  topics?: readonly string[];
  limit: number;
  /** Match word stems (connect ~ connections) instead of words as given. */
  stemmed?: boolean;
  /** Only objects holding every term (an AND query, far cheaper than OR on common words). */
  allTerms?: boolean;
}

export interface LexicalHit {
  object: StoredObject;
  /** Relevance from the full-text index; higher is better, only comparable within one answer. */
  relevance: number;
  /** The object holds every query term (as the full-text tokenizer sees words). */
  allTerms: boolean;
  /** The object holds the query terms as one phrase, adjacent and in order. */
  phrase: boolean;
}

export interface VoteInput {
  objectId: string;
  voterId: string;
  kind: VoteKind;
  note: string | null;
  evidenceUrl: string | null;
}

export interface VoteOutcome {
  /** False when the same voter had already cast the same vote. */
  changed: boolean;
  object: StoredObject;
}

export interface StoreCapabilities {
  fullText: 'fts5' | 'tsvector';
  /** Vector k-NN is available (sqlite-vec loaded / pgvector installed); the reason when not. */
  vectors: { available: true } | { available: false; reason: string };
}

export interface SemanticQuery {
  live: LiveCriteria;
  vector: Float32Array;
  model: string;
  types?: readonly ObjectType[];
  topics?: readonly string[];
  limit: number;
}

export interface SemanticHit {
  object: StoredObject;
  /** Cosine similarity to the query, in [-1, 1]. */
  similarity: number;
}

export interface EmbedJob {
  id: string;
  title: string;
  content: string;
  topics: string[];
  attempts: number;
}

/** An object as exported and imported: every stored field, hidden and withdrawn included. */
export interface BulkObject extends NewObject {
  hidden: boolean;
  withdrawn: boolean;
}

export interface Store {
  readonly capabilities: StoreCapabilities;
  /** MCP registry records: servers, probe verdicts, tools, history. */
  readonly registry: RegistryStore;
  /** Registered keys and authors' reputation. */
  readonly identity: IdentityStore;

  /** Applies pending migrations; safe to call on every start. */
  migrate(): Promise<void>;
  /** Resolves when the database answers a query. */
  ping(): Promise<void>;
  close(): Promise<void>;

  /**
   * Inserts the object unless a live object with the same dedupe key exists, atomically:
   * racing identical inserts create exactly one row.
   */
  insertObject(o: NewObject, live: LiveCriteria): Promise<{ object: StoredObject; created: boolean }>;
  /** The object in any state; `live` decides which replies its reply_count counts. */
  getObject(id: string, live: LiveCriteria): Promise<StoredObject | null>;
  /** Newest first (id descending). */
  listObjects(q: ListQuery): Promise<StoredObject[]>;

  /**
   * An object's votes, most recently cast or moved first, after the position `after` when given.
   * `voterId` is the stored voter identity (`anon:…` for anonymous voters).
   */
  listVotes(objectId: string, q: { limit: number; after?: { updatedAt: number; voterId: string } }): Promise<(Omit<VoteRecord, 'voter'> & { voterId: string })[]>;
  /** Sets the voter's vote on the object, moving it if it differs, and keeps the counts. */
  castVote(v: VoteInput, live: LiveCriteria): Promise<VoteOutcome | null>;
  setHidden(id: string, hidden: boolean, live: LiveCriteria): Promise<StoredObject | null>;
  /** Marks the object withdrawn (final). */
  setWithdrawn(id: string, live: LiveCriteria): Promise<StoredObject | null>;

  /** Live-object counts of topics with at least `minCount`, count desc then slug asc. */
  topTopics(live: LiveCriteria, minCount: number, limit: number): Promise<TopicCount[]>;
  /** Live-object counts of the given slugs (slugs with no live object are left out). */
  topicCounts(live: LiveCriteria, slugs: readonly string[]): Promise<TopicCount[]>;
  /** Topics carried by live objects that also carry `slug`, with their own live counts, highest first. */
  coTopics(live: LiveCriteria, slug: string, limit: number): Promise<TopicCount[]>;
  /** Topics whose slug contains one of the terms, with live counts, highest first. */
  topicsLike(live: LiveCriteria, terms: readonly string[], limit: number): Promise<TopicCount[]>;

  /** Full-text candidates over live objects (title > topics > content), best first. */
  searchLexical(q: LexicalQuery): Promise<LexicalHit[]>;

  // ---- embeddings

  /**
   * Queues every live object without a vector of `model` (start-up backfill, model change) and
   * makes every queued job due now, backoff forgotten: a start is when a model may have come back.
   * Answers how many objects were newly queued.
   */
  enqueueMissingVectors(model: string, live: LiveCriteria): Promise<number>;
  /** Up to `limit` due jobs of live objects; queued objects that are no longer live leave the queue. */
  claimEmbedJobs(live: LiveCriteria, limit: number): Promise<EmbedJob[]>;
  /** Stores vectors (replacing older ones) and takes their objects off the queue; null: nothing to embed. */
  saveVectors(model: string, items: { id: string; vector: Float32Array | null }[]): Promise<void>;
  /** Puts failed jobs back for a retry at `nextAt`. */
  failEmbedJobs(ids: readonly string[], error: string, nextAt: number): Promise<void>;
  embedQueueSize(): Promise<number>;
  /** When the job waiting longest was queued (epoch ms, wall clock: it feeds /metrics), or null when the queue is empty. */
  embedQueueOldest(): Promise<number | null>;
  /** Exact nearest live objects by cosine similarity under the filters, best first. */
  searchSemantic(q: SemanticQuery): Promise<SemanticHit[]>;

  // ---- bulk import and export

  /**
   * Runs `fn` with an insert function inside one write transaction: all rows land, or none
   * (fn throwing rolls back). Ids must be new; parents must exist or come earlier.
   */
  bulkImport<T>(fn: (insert: (rows: readonly BulkObject[]) => void) => Promise<T>): Promise<T>;
  /** Every object in any state, in id order after `after` (exports). */
  scanObjects(after: string | null, limit: number, live: LiveCriteria): Promise<StoredObject[]>;

  getSetting(key: string): Promise<string | null>;
  /** Stores the value unless the key exists; returns the value now stored. */
  initSetting(key: string, value: string): Promise<string>;
}

export type { RootType };
