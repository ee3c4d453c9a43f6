/**
 * The Store port: everything the board keeps, in halves along its seams, each a port of its own
 * (objects, votes, search index, embedding queue, registry, identity, events) so that every adapter has
 * one file per half. Every method is async so that a networked store (PostgreSQL) can implement
 * it; the embedded SQLite adapter answers synchronously inside. Pinned by the contract suite in
 * test/store/store.case.ts.
 */
import type { NewEvent } from '../domain/events.js';
import type { LiveCriteria, StoredObject } from '../domain/model.js';
import type { EmbedQueue, ObjectVector } from './embed-queue.js';
import type { Backups } from './backup.js';
import type { EventLog } from './event-log.js';
import type { IdentityStore } from './identity-store.js';
import type { ModerationStore } from './moderation-store.js';
import type { SpaceStore } from './space-store.js';
import type { NewObject, ObjectStore } from './object-store.js';
import type { RegistryStore } from './registry-store.js';
import type { SearchIndex } from './search-index.js';
import type { VoteStore } from './vote-store.js';

/** What a store can do, said by behaviour rather than by engine. */
export interface StoreCapabilities {
  /**
   * How the semantic leg is answered: exact distances over the filtered set, computed by the
   * database (`exact-scan`); an approximate index in the database with an exact re-rank of its
   * candidates (`approximate-index`); or an index in this process's memory kept current from the
   * database (`process-memory`). Or why there is no semantic leg.
   */
  vectors: { available: true; answeredBy: 'exact-scan' | 'approximate-index' | 'process-memory' } | { available: false; reason: string };
}

/** The halves a transaction may use together. */
export type StoreTx = Pick<Store, 'objects' | 'votes' | 'identity' | 'events' | 'moderation'>;

export interface Store {
  readonly capabilities: StoreCapabilities;
  readonly objects: ObjectStore;
  readonly votes: VoteStore;
  readonly search: SearchIndex;
  readonly embeddings: EmbedQueue;
  /** MCP registry records: servers, probe verdicts, tools, history. */
  readonly registry: RegistryStore;
  /** Registered keys and authors' reputation. */
  readonly identity: IdentityStore;
  /** The push stream's events, for replay and for every instance. */
  readonly events: EventLog;
  /** Quarantines of sources and the moderators' audit log. */
  readonly moderation: ModerationStore;
  /** Private spaces: their members and tokens. */
  readonly spaces: SpaceStore;
  /** Everything the store holds, read in one snapshot for a backup, and written back by a restore. */
  readonly backups: Backups;

  /**
   * Inserts the object unless a live object with the same dedupe key exists, and appends
   * `event` when it does insert it, in one transaction: racing identical publishes create
   * exactly one row and one event. Concurrent publishes may share a transaction. With
   * `vector` (of the model the semantic leg serves), the object is stored with it; without,
   * it joins the embedding queue (embeddings).
   */
  publish(o: NewObject, live: LiveCriteria, event: NewEvent, vector?: ObjectVector | null): Promise<{ object: StoredObject; created: boolean }>;

  /**
   * Runs `fn` as one transaction: every write it makes through `tx` lands, or none does (fn
   * throwing rolls back). Each read sees what other transactions committed before it; what
   * must not change underneath is locked by the half that reads it (a vote locks its object,
   * `identity.lockAuthor` an author's standing). It may be run again after a deadlock, so `fn`
   * does nothing but read and write through `tx`. `scope` names what it locks: the author of the
   * object it writes, or the object when it has none. Transactions of one scope may wait for each
   * other; a store may run those of different scopes at once.
   */
  withTransaction<T>(scope: string, fn: (tx: StoreTx) => Promise<T>): Promise<T>;

  /**
   * A value that moves whenever anything the board shows may have changed: a write from this
   * process, or from another one once the store hears of it (shared stores: within a
   * notification's delay). Equal marks mean no write in between. Null when the store cannot
   * tell (a lost notification connection): then nothing may be served from a cache.
   */
  changeMark(): Promise<number | string | null>;

  /** Applies pending migrations; safe to call on every start, from many processes at once. */
  migrate(): Promise<void>;
  /** Resolves when the database answers a query. */
  ping(): Promise<void>;
  close(): Promise<void>;

  getSetting(key: string): Promise<string | null>;
  /** Stores the value unless the key exists; returns the value now stored. */
  initSetting(key: string, value: string): Promise<string>;
}
