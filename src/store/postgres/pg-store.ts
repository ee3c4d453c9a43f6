/**
 * The Store on PostgreSQL: a pool of connections shared by the halves (objects, votes, search
 * index, embedding queue, registry, identity), each in its file mirroring the SQLite one of
 * the same name. Races are closed by the database: advisory locks for dedupe, row locks for
 * votes, SKIP LOCKED leases for embedding jobs, one advisory lock around migrations.
 */
import type { NewEvent } from '../../domain/events.js';
import type { EmbedQueue, ObjectVector } from '../../ports/embed-queue.js';
import type { EventLog } from '../../ports/event-log.js';
import type { IdentityStore } from '../../ports/identity-store.js';
import type { LiveCriteria, StoredObject } from '../../domain/model.js';
import type { NewObject, ObjectStore } from '../../ports/object-store.js';
import type { RegistryStore } from '../../ports/registry-store.js';
import type { SearchIndex } from '../../ports/search-index.js';
import type { Store, StoreCapabilities, StoreTx } from '../../ports/store.js';
import type { VoteStore } from '../../ports/vote-store.js';
import { PgChanges } from './pg-changes.js';
import { PgEmbedQueue } from './pg-embed-queue.js';
import { mapPgErrors } from './pg-errors.js';
import { PgEvents } from './pg-events.js';
import type { BatchSettings } from '../batch-queue.js';
import { PgGroupCommit } from './pg-group-commit.js';
import { PgSpaces } from './pg-spaces.js';
import type { SpaceStore } from '../../ports/space-store.js';
import { PgIdentity } from './pg-identity.js';
import { pgMigrations } from './pg-migrations.js';
import { PgObjects } from './pg-objects.js';
import { PgPublishes } from './pg-publishes.js';
import type { VectorLeg } from './pg-inserts.js';
import { PgRegistry } from './pg-registry.js';
import { one, run } from './pg-rows.js';
import { PgIndexUpkeep } from './pg-index-upkeep.js';
import { PgSearchIndex } from './pg-search-index.js';
import { PgBackups } from './pg-backups.js';
import type { Backups } from '../../ports/backup.js';
import type { PgRoot, PgSession } from './pg-session.js';
import { MemoryVectors, PgvectorLeg, type VectorMode } from './pg-vectors.js';
import type { VectorIndexSettings } from '../vector-memory.js';
import { PgVotes } from './pg-votes.js';
import { PgModeration } from './pg-moderation.js';
import type { ModerationStore } from '../../ports/moderation-store.js';

export interface PgStoreOptions {
  /**
   * `auto`: pgvector when `CREATE EXTENSION vector` succeeds, else vectors in each process's
   * memory; `memory`: always in memory.
   */
  vectorIndex?: 'auto' | 'memory';
  /** The vectors held in memory (without pgvector): when their approximate index answers. */
  memoryIndex?: VectorIndexSettings;
  /** How writes are batched: publishes into one statement (pg-publishes.ts), other transactions into one commit (pg-group-commit.ts). */
  groupCommit?: BatchSettings;
  /** Publish statements in flight at once, pipelined on one connection (PgRoot.pipeline). */
  publishPipeline?: number;
  /** Publishes waiting before a statement is sent behind one in flight (PG_PUBLISH_PIPELINE_MIN). */
  publishPipelineMin?: number;
  /** How often the full-text indexes' pending lists are merged after writes (pg-index-upkeep.ts); 0 never. */
  indexUpkeepMs?: number;
  warn?: (message: string, err: unknown) => void;
}

export class PgStore implements Store {
  readonly objects: ObjectStore;
  readonly votes: VoteStore;
  readonly search: SearchIndex;
  readonly embeddings: EmbedQueue;
  readonly registry: RegistryStore;
  readonly identity: IdentityStore;
  readonly events: EventLog;
  readonly moderation: ModerationStore;
  readonly spaces: SpaceStore;
  readonly backups: Backups;
  readonly #db: PgRoot;
  readonly #opts: PgStoreOptions;
  readonly #changes = new PgChanges();
  readonly #commits: PgGroupCommit;
  readonly #publishes: PgPublishes;
  readonly #upkeep: PgIndexUpkeep;
  /** How the semantic leg is answered; chosen by the first migrate(), none before. */
  #leg: PgvectorLeg | MemoryVectors | null = null;

  constructor(root: PgRoot, opts: PgStoreOptions = {}) {
    const db = this.#changes.counting(root);
    this.#db = db;
    this.#opts = opts;
    // Write batches are planned once per connection, on connections of their own
    // (PgRoot.genericPlans); publishes on one, pipelined (PgRoot.pipeline); reads by key and
    // searches' statements on pipelined connections of their own (PgRoot.pipelines), planned
    // once (reads by key, searches of few matches) or for their values.
    const batches = opts.groupCommit ?? { maxBatch: 32, inFlight: 4 };
    this.#commits = new PgGroupCommit(db.genericPlans(), batches);
    this.#publishes = new PgPublishes(db.pipeline(), { maxBatch: batches.maxBatch, inFlight: opts.publishPipeline ?? 2, minBehind: opts.publishPipelineMin ?? 8 }, () => this.#leg);
    this.#upkeep = new PgIndexUpkeep(db, { intervalMs: opts.indexUpkeepMs ?? 5000, writes: () => this.#changes.writes, warn: opts.warn });
    this.objects = mapPgErrors(new PgObjects(db, db.pipelines('generic'), () => this.#leg));
    this.backups = mapPgErrors(new PgBackups(db));
    this.votes = mapPgErrors(new PgVotes(db));
    this.search = mapPgErrors(new PgSearchIndex({ pool: db, planned: db.genericPlans() }, { planned: db.pipelines('generic'), custom: db.pipelines('custom') }, () => this.#leg, () => this.changeMark()));
    this.embeddings = mapPgErrors(new PgEmbedQueue(db, () => this.#leg));
    this.registry = mapPgErrors(new PgRegistry(db));
    this.identity = mapPgErrors(new PgIdentity(db));
    this.events = mapPgErrors(new PgEvents(db, db));
    this.moderation = mapPgErrors(new PgModeration(db));
    this.spaces = mapPgErrors(new PgSpaces(db));
    // A constructor may return another object: callers get the mapped instance.
    return mapPgErrors(this);
  }

  /** Known once migrate() has looked for pgvector. */
  get capabilities(): StoreCapabilities {
    return { vectors: { available: true, answeredBy: this.#vectorMode() === 'pgvector' ? 'approximate-index' : 'process-memory' } };
  }

  /** Concurrent calls share one statement (PgPublishes). */
  publish(o: NewObject, live: LiveCriteria, event: NewEvent, vector?: ObjectVector | null): Promise<{ object: StoredObject; created: boolean }> {
    return this.#publishes.run(o, live, event, vector ?? null);
  }

  /** Concurrent calls of a lane share one BEGIN … COMMIT, one after another (PgGroupCommit). */
  withTransaction<T>(scope: string, fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.#commits.run(scope, (tx, events) => fn(halves(tx, events, () => this.#leg)));
  }

  /**
   * Applies pending migrations in one transaction under an advisory lock (per schema): of ten
   * instances starting at once, one migrates and the others find the work done. Then looks
   * for pgvector, which may be installed later: each start looks again.
   */
  async migrate(): Promise<void> {
    const pgvector = await this.#db.transaction(async (tx) => {
      // Migrations may wait for another instance's and take long locks themselves: no lock timeout here.
      await tx.query('SET LOCAL lock_timeout = 0');
      await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('agentboard-migrate:' || current_schema(), 0))`);
      await tx.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)');
      for (const m of pgMigrations) {
        if (await one(tx, 'SELECT 1 FROM schema_migrations WHERE version = @v', { v: m.version })) continue;
        await tx.exec(m.sql);
        await run(tx, 'INSERT INTO schema_migrations (version, name, applied_at) VALUES (@v, @name, @at)', { v: m.version, name: m.name, at: Date.now() });
      }
      return this.#opts.vectorIndex === 'memory' ? null : await installPgvector(tx);
    });
    this.#leg ??= pgvector ? new PgvectorLeg(this.#db, pgvector) : new MemoryVectors(this.#db, this.#opts.memoryIndex, () => this.#changes.changed(), () => this.changeMark());
    this.#upkeep.start();
  }

  /** Merges the full-text indexes' pending lists now, as the upkeep does after writes; answers the pages merged. */
  upkeepIndexes(): Promise<number> {
    return this.#upkeep.run();
  }

  #vectorMode(): VectorMode {
    return this.#leg instanceof PgvectorLeg ? 'pgvector' : 'memory';
  }

  async changeMark(): Promise<number | null> {
    return this.#changes.mark(this.#db);
  }

  async ping(): Promise<void> {
    await this.#db.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.#upkeep.stop();
    if (this.#leg instanceof MemoryVectors) await this.#leg.close();
    await this.#db.close();
  }

  async getSetting(key: string): Promise<string | null> {
    return (await one<{ value: string }>(this.#db, 'SELECT value FROM settings WHERE key = @key', { key }))?.value ?? null;
  }

  async initSetting(key: string, value: string): Promise<string> {
    await run(this.#db, 'INSERT INTO settings (key, value) VALUES (@key, @value) ON CONFLICT (key) DO NOTHING', { key, value });
    return (await this.getSetting(key))!;
  }
}

function halves(tx: PgSession, events: NewEvent[], leg: () => VectorLeg): StoreTx {
  return { objects: mapPgErrors(new PgObjects(tx, tx, leg)), votes: mapPgErrors(new PgVotes(tx)), identity: mapPgErrors(new PgIdentity(tx)), events: mapPgErrors(new PgEvents(tx, undefined, events)), moderation: mapPgErrors(new PgModeration(tx)) };
}

/**
 * Installs pgvector if the server has it (a failure is caught inside, so the transaction goes
 * on) and gives the vectors their `vector` copy. Answers pgvector's version, or null without it.
 */
async function installPgvector(tx: PgSession): Promise<string | null> {
  await tx.exec(`DO $$ BEGIN CREATE EXTENSION IF NOT EXISTS vector; EXCEPTION WHEN OTHERS THEN NULL; END $$`);
  const ext = await one<{ extversion: string }>(tx, `SELECT extversion FROM pg_extension WHERE extname = 'vector'`);
  if (!ext) return null;
  // Once, when pgvector arrives: the column, and copies of the vectors stored before it.
  if (!(await one(tx, `SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'object_vectors' AND column_name = 'vec'`))) {
    await tx.exec('ALTER TABLE object_vectors ADD COLUMN vec vector; UPDATE object_vectors SET vec = embedding::vector');
  }
  return ext.extversion;
}
