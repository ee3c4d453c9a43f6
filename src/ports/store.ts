/**
 * The Store port: everything the board keeps, in halves along its seams, each a port of its own
 * (objects, votes, search index, embedding queue, registry, identity) so that every adapter has
 * one file per half. Every method is async so that a networked store (PostgreSQL) can implement
 * it; the embedded SQLite adapter answers synchronously inside. Pinned by the contract suite in
 * test/store/store.case.ts.
 */
import type { EmbedQueue } from './embed-queue.js';
import type { IdentityStore } from './identity-store.js';
import type { ObjectStore } from './object-store.js';
import type { RegistryStore } from './registry-store.js';
import type { SearchIndex } from './search-index.js';
import type { VoteStore } from './vote-store.js';

export interface StoreCapabilities {
  fullText: 'fts5' | 'tsvector';
  /** Vector k-NN is available (sqlite-vec loaded / pgvector installed); the reason when not. */
  vectors: { available: true } | { available: false; reason: string };
}

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

  /** Applies pending migrations; safe to call on every start. */
  migrate(): Promise<void>;
  /** Resolves when the database answers a query. */
  ping(): Promise<void>;
  close(): Promise<void>;

  getSetting(key: string): Promise<string | null>;
  /** Stores the value unless the key exists; returns the value now stored. */
  initSetting(key: string, value: string): Promise<string>;
}
