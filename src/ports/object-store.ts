/**
 * The objects half of the Store port: writing, reading and listing objects, topic counts, and
 * bulk import and export. "Live" is the rule of domain/state.ts: a store keeps each object's
 * `liveUntil` as that rule derives it, re-derived in the same transaction as any write to the
 * facts it depends on, and reads "live" as `liveUntil > now`. Pinned by the contract suite in
 * test/store/store.case.ts.
 */
import type { LiveCriteria, ObjectType, StoredObject, TrustLevel } from '../domain/model.js';
import type { ObjectVector } from './embed-queue.js';

/** What a writer hands the store: the stored fields it decides, with the dedupe key. */
export interface NewObject
  extends Pick<StoredObject, 'id' | 'type' | 'title' | 'content' | 'topics' | 'sourceUrl' | 'parentId' | 'author' | 'createdAt' | 'expiresAt' | 'injectionSuspected'> {
  dedupeKey: string;
  /** The space it is written into; absent or null for the commons. The board's writes always say which. */
  space?: string | null;
  /** The earlier object this one replaces (domain/supersede.ts). */
  supersedes?: string | null;
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
  /** Only objects whose author shows at least this trust (domain/trust.ts). */
  minTrust?: TrustLevel;
  limit: number;
}

export interface TopicCount {
  slug: string;
  count: number;
}

/** An object as exported and imported: every stored field, hidden and withdrawn included. */
export interface BulkObject extends NewObject {
  hidden: boolean;
  withdrawn: boolean;
  supersededBy?: string | null;
  /** Written by a quarantined source (kept by backups: the quarantine comes back with them). */
  quarantined?: boolean;
  /** A promoted space object's public copy. */
  promotedTo?: string | null;
}

export interface ObjectStore {
  /** The object in any state; `live` decides which replies its reply_count counts. */
  get(id: string, live: LiveCriteria): Promise<StoredObject | null>;
  /** Several objects in any state, in one read; unknown ids are left out, order is not kept. */
  getMany(ids: readonly string[], live: LiveCriteria): Promise<StoredObject[]>;
  /** Newest first (id descending). */
  list(q: ListQuery): Promise<StoredObject[]>;
  setHidden(id: string, hidden: boolean, live: LiveCriteria): Promise<StoredObject | null>;
  /** Marks the object withdrawn (final). */
  setWithdrawn(id: string, live: LiveCriteria): Promise<StoredObject | null>;
  /**
   * Marks the object superseded by `by` (final), only while it is neither superseded nor
   * withdrawn: null when it is, or when there is no such object. Two racing calls for one
   * object cannot both succeed.
   */
  setSuperseded(id: string, by: string, live: LiveCriteria): Promise<StoredObject | null>;
  /**
   * Inserts the object, with no dedupe, as part of the transaction it is called in
   * (Store.withTransaction): with `vector`, stored with it; without, it joins the embedding
   * queue. Events are the caller's to append.
   */
  insert(o: NewObject, live: LiveCriteria, vector?: ObjectVector | null): Promise<StoredObject>;
  /** Records the public copy a space object was promoted to (service/promote.ts); null when there is no such object. */
  setPromoted(id: string, to: string, live: LiveCriteria): Promise<StoredObject | null>;
  /** Moves the object's expiry (a verification extending it, domain/lifetimes.ts). */
  setExpiry(id: string, expiresAt: number, live: LiveCriteria): Promise<StoredObject | null>;

  /**
   * The earliest instant after `now` at which a live object stops being live by time alone
   * (null when none will): until then, listings, reply counts and topic counts cannot change
   * without a write.
   */
  nextExpiry(now: number): Promise<number | null>;

  /** Live-object counts of topics with at least `minCount`, count desc then slug asc. */
  topTopics(live: LiveCriteria, minCount: number, limit: number): Promise<TopicCount[]>;
  /** Live-object counts of the given slugs (slugs with no live object are left out); with `minTrust`, of those objects whose author shows that trust. */
  topicCounts(live: LiveCriteria, slugs: readonly string[], minTrust?: TrustLevel): Promise<TopicCount[]>;
  /** Topics carried by live objects that also carry `slug`, with their own live counts, highest first; `minTrust` as for topicCounts. */
  coTopics(live: LiveCriteria, slug: string, limit: number, minTrust?: TrustLevel): Promise<TopicCount[]>;
  /** Topics whose slug contains one of the terms, with live counts, highest first. */
  topicsLike(live: LiveCriteria, terms: readonly string[], limit: number): Promise<TopicCount[]>;

  /**
   * Inserts every row of every batch in one transaction: all land, or none (a bad row, or the
   * source throwing, rolls back). Ids must be new; parents must exist or come earlier. The
   * batches should come from local storage, not a client: the transaction is open while they
   * are read. Answers how many rows were inserted.
   */
  bulkImport(batches: AsyncIterable<readonly BulkObject[]>, live: LiveCriteria): Promise<number>;
  /**
   * Re-derives every object's standing unless the store already keeps it by
   * `standingStamp(minContradictions)`; run at start, before serving. Answers how many changed.
   */
  restate(minContradictions: number): Promise<number>;
  /** Every object in any state, in id order after `after` (exports). */
  scan(after: string | null, limit: number, live: LiveCriteria): Promise<StoredObject[]>;
}

/** A row the store refused during a bulk import, and why. */
export class BulkRowError extends Error {
  constructor(
    readonly row: BulkObject,
    message: string,
  ) {
    super(message);
    this.name = 'BulkRowError';
  }
}
