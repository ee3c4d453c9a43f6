/**
 * The embedded Store on one SQLite file (better-sqlite3). better-sqlite3 is synchronous: one
 * connection, short queries, write transactions opened with BEGIN IMMEDIATE. The halves of the
 * port (objects, votes, search index, embedding queue, registry, identity) each have their file,
 * mirrored by name in every other store; they share this connection and its statement cache.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import type { EmbedQueue, ObjectVector } from '../../ports/embed-queue.js';
import type { EventLog } from '../../ports/event-log.js';
import type { IdentityStore } from '../../ports/identity-store.js';
import type { NewEvent } from '../../domain/events.js';
import type { LiveCriteria, StoredObject } from '../../domain/model.js';
import type { NewObject, ObjectStore } from '../../ports/object-store.js';
import type { RegistryStore } from '../../ports/registry-store.js';
import type { SearchIndex } from '../../ports/search-index.js';
import type { Store, StoreCapabilities, StoreTx } from '../../ports/store.js';
import type { VoteStore } from '../../ports/vote-store.js';
import { guard } from './sqlite-errors.js';
import { Checkpointer } from './checkpointer.js';
import { SqliteBackups } from './sqlite-backups.js';
import type { Backups } from '../../ports/backup.js';
import { SearchThread } from './search-thread.js';
import { publishRow } from './sqlite-publishes.js';
import type { Sql } from './sqlite-rows.js';
import { GroupCommit, WriteGate } from './write-gate.js';
import { useWal } from './wal-mode.js';
import { migrations } from './sqlite-migrations.js';
import { SqliteEmbedQueue } from './sqlite-embed-queue.js';
import { SqliteEvents } from './sqlite-events.js';
import { SqliteIdentity } from './sqlite-identity.js';
import { SqliteObjects } from './sqlite-objects.js';
import { SqliteRegistry } from './sqlite-registry.js';
import { SqliteSearchIndex } from './sqlite-search-index.js';
import { SqliteMemoryVectors, SqliteScanVectors, type SqliteVectorLeg, type SqliteVectorMode } from './sqlite-vectors.js';
import type { VectorIndexSettings } from '../vector-memory.js';
import { SqliteVotes } from './sqlite-votes.js';
import { SqliteModeration } from './sqlite-moderation.js';
import { SqliteSpaces } from './sqlite-spaces.js';
import type { SpaceStore } from '../../ports/space-store.js';
import type { ModerationStore } from '../../ports/moderation-store.js';

export interface SqliteStoreOptions {
  busyTimeoutMs?: number;
  groupCommitMax?: number;
  /** How often a thread of the store's own checkpoints the log; absent or 0: SQLite does, inside commits. */
  checkpointMs?: number;
  vectors?: SqliteVectorMode;
  memoryIndex?: VectorIndexSettings;
  /** Rank lexical matches from their texts even where FTS5's bm25() costs less (they rank alike; the store contract runs both ways). */
  rankFromTexts?: boolean;
  /** Run lexical queries' statements on a thread of their own (search-thread.ts); a file's only, default true. */
  searchThread?: boolean;
  /** That thread's connection's page cache, in KiB (default 2048, about SQLite's own default; better-sqlite3's is 16,000). */
  searchCacheKib?: number;
  /** Told of a failure the store works around (the checkpoint thread ending). */
  warn?: (message: string, err: unknown) => void;
}

/** How stale another process's commit may be to changeMark(): a millisecond, as a NOTIFY takes between PostgreSQL instances. */
const DATA_VERSION_MS = 1;

export class SqliteStore implements Store {
  readonly capabilities: StoreCapabilities;
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
  readonly #events: SqliteEvents;
  readonly #db: Database.Database;
  readonly #gate = new WriteGate();
  readonly #commits: GroupCommit;
  readonly #checkpointer: Checkpointer | null;
  readonly #searchThread: SearchThread | null;
  readonly #inside: StoreTx;
  /** Prepared statements by SQL text: preparing costs more than running these short queries. */
  readonly #statements = new Map<string, Database.Statement>();
  /** #sql as the halves take it. */
  readonly #prepared: Sql = (text) => this.#sql(text);
  #dataVersion = { at: -Infinity, value: 0 };

  /**
   * Opens (creating folders as needed) the file at `path`, or an in-memory database for
   * `:memory:`. The instance returned, and each half, waits at the write gate and maps
   * busy-database errors to `unavailable` (sqlite-errors.ts). With `checkpointMs`, a file's log is
   * checkpointed by a thread of its own that often, instead of inside commits (checkpointer.ts).
   */
  constructor(path: string, opts: SqliteStoreOptions = {}) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.#db = new Database(path);
    // busy_timeout first, so the pragmas below already wait instead of failing on a busy file.
    const busyTimeoutMs = Math.max(0, Math.trunc(opts.busyTimeoutMs ?? 5000));
    this.#db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    useWal(this.#db, busyTimeoutMs);
    this.#db.pragma('synchronous = NORMAL');
    this.#db.pragma('foreign_keys = ON');
    this.#db.pragma('temp_store = MEMORY');
    const sql = this.#prepared;
    let leg: SqliteVectorLeg | null = null;
    let vectors: StoreCapabilities['vectors'];
    if ((opts.vectors ?? 'memory') === 'memory') {
      leg = new SqliteMemoryVectors(this.#db, sql, opts.memoryIndex, () => this.changeMark());
      vectors = { available: true, answeredBy: 'process-memory' };
    } else {
      try {
        sqliteVec.load(this.#db);
        leg = new SqliteScanVectors(sql);
        vectors = { available: true, answeredBy: 'exact-scan' };
      } catch (err) {
        vectors = { available: false, reason: `sqlite-vec could not be loaded: ${err instanceof Error ? err.message : String(err)}` };
      }
    }
    this.capabilities = { vectors };
    const gate = this.#gate;
    const objects = new SqliteObjects(this.#db, sql, gate);
    const votes = new SqliteVotes(this.#db, sql);
    const identity = new SqliteIdentity(sql);
    this.#events = new SqliteEvents(this.#db, sql);
    this.objects = guard(objects, gate);
    this.votes = guard(votes, gate);
    // An in-memory database is this connection's alone: another cannot open it.
    this.#searchThread = path !== ':memory:' && (opts.searchThread ?? true) ? new SearchThread(path, busyTimeoutMs, opts.searchCacheKib ?? 2048) : null;
    this.search = guard(new SqliteSearchIndex(sql, leg, opts.rankFromTexts, this.#searchThread?.rows), gate);
    this.embeddings = guard(new SqliteEmbedQueue(this.#db, sql), gate);
    this.registry = guard(new SqliteRegistry(this.#db, sql), gate);
    this.identity = guard(identity, gate);
    this.events = guard(this.#events, gate);
    this.backups = guard(new SqliteBackups(this.#db, path, sql), gate);
    const moderation = new SqliteModeration(sql);
    this.moderation = guard(moderation, gate);
    this.spaces = guard(new SqliteSpaces(this.#db, sql), gate);
    // The transaction holding the gate works through these: they must not wait for it.
    this.#inside = { objects: guard(objects, null), votes: guard(votes, null), identity: guard(identity, null), events: guard(this.#events, null), moderation: guard(moderation, null) };
    this.#commits = new GroupCommit(this.#db, gate, Math.max(1, Math.trunc(opts.groupCommitMax ?? 64)), (ok) => this.#events.committed(ok));
    // Last, so that nothing above can throw with the thread already holding a connection.
    this.#checkpointer = path !== ':memory:' && opts.checkpointMs ? new Checkpointer(this.#db, path, opts.checkpointMs, opts.warn) : null;
    // A constructor may return another object: callers get the guarded instance. Transactions
    // and publishes wait for the gate in their batches' queue: a publish asked while a batch
    // holds it joins the next at once.
    return guard(this, gate, ['withTransaction', 'publish']);
  }

  #sql(sql: string): Database.Statement {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * Applies each pending migration in its own write transaction, checking inside it whether the
   * version is already applied: processes starting at once on one file migrate once, the others
   * waiting on the write lock and then finding the work done. Then drops any sqlite_stat4
   * samples (below): every start runs this, before the first statement that they would slow.
   */
  async migrate(): Promise<void> {
    const db = this.#db;
    db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?');
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    for (const m of migrations) {
      if (isApplied.get(m.version)) continue;
      db.transaction(() => {
        if (isApplied.get(m.version)) return;
        db.exec(m.sql);
        record.run(m.version, m.name, Date.now());
      }).immediate();
    }
    // better-sqlite3 builds SQLite with STAT4. Once a file has sqlite_stat4 samples (an ANALYZE,
    // or the PRAGMA optimize SQLite advises), every statement whose plan could depend on a bound
    // value is prepared again each time that value changes, FTS5's own lookups in its index
    // included, which slowed every search (docs/performance.md). The samples go
    // at each start (sqlite_stat1's counts stay), and this connection reloads the statistics.
    if (db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat4'").get() && db.prepare('SELECT 1 FROM sqlite_stat4 LIMIT 1').get()) {
      db.transaction(() => db.exec('DELETE FROM sqlite_stat4')).immediate();
      db.exec('ANALYZE sqlite_schema');
    }
  }

  /**
   * BEGIN IMMEDIATE takes the file's write lock at once, so the transaction is serializable
   * against other processes; the gate keeps this process's other requests out until it ends.
   * Concurrent calls share one BEGIN … COMMIT (GroupCommit), which the halves' own write
   * transactions join. One writer at a time: `scope` changes nothing here.
   */
  async withTransaction<T>(_scope: string, fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.#commits.run(() => fn(this.#inside));
  }

  /** Shares a BEGIN … COMMIT with concurrent writes (GroupCommit), as withTransaction does. */
  publish(o: NewObject, live: LiveCriteria, event: NewEvent, vector?: ObjectVector | null): Promise<{ object: StoredObject; created: boolean }> {
    return this.#commits.run(async () => {
      const r = publishRow(this.#prepared, o, live, event, vector ?? null);
      if (r.created) this.#events.announceAtCommit();
      return r;
    });
  }

  /**
   * This connection's writes (total_changes, exact) and other processes' commits to the file
   * (data_version, which opens a read transaction: read again once DATA_VERSION_MS has passed,
   * so another process's commit is seen within that).
   */
  async changeMark(): Promise<string> {
    const now = performance.now();
    if (now - this.#dataVersion.at >= DATA_VERSION_MS) this.#dataVersion = { at: now, value: this.#sql('PRAGMA data_version').pluck().get() as number };
    return `${this.#sql('SELECT total_changes()').pluck().get() as number}:${this.#dataVersion.value}`;
  }

  async ping(): Promise<void> {
    this.#sql('SELECT 1').get();
  }

  async close(): Promise<void> {
    await Promise.all([this.#checkpointer?.stop(), this.#searchThread?.stop()]);
    if (this.#db.open) this.#db.close();
  }

  async getSetting(key: string): Promise<string | null> {
    const row = this.#sql('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value ?? null;
  }

  async initSetting(key: string, value: string): Promise<string> {
    this.#sql('INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)').run(key, value);
    return (await this.getSetting(key))!;
  }
}
