import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { migrations } from '../../src/store/sqlite/sqlite-migrations.js';
import { SELECT_OBJECT } from '../../src/store/sqlite/sqlite-rows.js';
import { SqliteStore, type SqliteStoreOptions } from '../../src/store/sqlite/sqlite-store.js';
import { expectUpgraded, oldRows } from './standing-upgrade.case.js';
import { runStoreContract } from './store.case.js';
import { eventOf } from '../../src/domain/events.js';
import { publishObject } from '../helpers/publish.js';

const require = createRequire(import.meta.url);

/** The store contract on a file made for each test (`file` may name folders to create), with `opts`. */
function fileContract(name: string, opts: SqliteStoreOptions = {}, file = 'board.db', check?: (store: SqliteStore) => void): void {
  runStoreContract({
    name,
    async makeStore() {
      const dir = mkdtempSync(join(tmpdir(), 'agentboard-store-'));
      const store = new SqliteStore(join(dir, file), opts);
      check?.(store);
      return {
        store,
        async dispose() {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  });
}

fileContract('sqlite (file)', {}, join('nested', 'board.db'));
// The other semantic leg, sqlite-vec's exact scan of the file, answers the same contract.
fileContract('sqlite (file, SQLITE_VECTORS=scan)', { vectors: 'scan' }, 'board.db', (store) =>
  expect(store.capabilities.vectors).toEqual({ available: true, answeredBy: 'exact-scan' }),
);
// Lexical statements on the request thread's connection (SQLITE_SEARCH_THREAD=false) answer it too.
fileContract('sqlite (file, searches on the request thread)', { searchThread: false });
// Lexical windows ranked from their texts (as on a large board with common words) answer it too.
fileContract('sqlite (file, ranked from texts)', { rankFromTexts: true });

/** A minimal new object for the multi-handle tests below. */
const newRow = (id: string, now: number) => ({
  id,
  type: 'finding' as const,
  title: 't',
  content: id,
  topics: ['x'],
  sourceUrl: null,
  parentId: null,
  author: null,
  createdAt: now,
  expiresAt: now + 60_000,
  injectionSuspected: false,
  dedupeKey: id,
});

it('sqlite: ping fails once the database is closed', async () => {
  const store = new SqliteStore(':memory:');
  await store.migrate();
  await store.close();
  await expect(store.ping()).rejects.toThrow();
});

it('sqlite: a write blocked by another process past busy_timeout is unavailable, not an internal error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-store-'));
  const path = join(dir, 'board.db');
  const holder = new SqliteStore(path);
  const waiter = new SqliteStore(path, { busyTimeoutMs: 50 });
  await holder.migrate();
  const live = { now: Date.now(), disputeMinContradictions: 2 };
  let release!: () => void;
  async function* waiting() {
    await new Promise<void>((resolve) => (release = resolve));
    yield [];
  }
  const held = holder.objects.bulkImport(waiting(), live);
  await new Promise((resolve) => setTimeout(resolve, 10));
  await expect(publishObject(waiter, newRow('01J0000000000000000000000C', live.now), live)).rejects.toMatchObject({ code: 'unavailable' });
  release();
  await held;
  expect((await publishObject(waiter, newRow('01J0000000000000000000000D', live.now), live)).created).toBe(true);
  await holder.close();
  await waiter.close();
  rmSync(dir, { recursive: true, force: true });
});

it('sqlite: opens a new file that another process holds exclusively, within busy_timeout (SQLite runs no busy handler for the WAL conversion)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-store-'));
  const path = join(dir, 'board.db');
  // Another process made the file (not yet WAL) and holds it exclusively for 300 ms.
  const script = `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))}); const db = new D(process.argv[1]);
    db.exec('CREATE TABLE t (x)'); db.exec('BEGIN EXCLUSIVE'); process.stdout.write('held\\n');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300); db.exec('COMMIT'); db.close();`;
  const holder = spawn(process.execPath, ['-e', script, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
  const store = new SqliteStore(path, { busyTimeoutMs: 5000 });
  try {
    await store.migrate();
    expect(new Database(path, { readonly: true }).pragma('journal_mode', { simple: true })).toBe('wal');
  } finally {
    await store.close();
    await new Promise((resolve) => (holder.exitCode === null ? holder.once('exit', resolve) : resolve(null)));
    rmSync(dir, { recursive: true, force: true });
  }
});

it('sqlite: two handles on one file claim disjoint embedding jobs (leases are in the database)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-store-'));
  const path = join(dir, 'board.db');
  const a = new SqliteStore(path);
  const b = new SqliteStore(path);
  await a.migrate();
  const live = { now: Date.now(), disputeMinContradictions: 2 };
  for (let i = 0; i < 6; i++) await publishObject(a, newRow(`01J000000000000000000000${String(i).padStart(2, '0')}`, live.now), live);
  const [fromA, fromB] = [await a.embeddings.claim(live, 4, 60_000), await b.embeddings.claim(live, 4, 60_000)];
  expect(fromA).toHaveLength(4);
  expect(fromB).toHaveLength(2);
  expect(new Set([...fromA, ...fromB].map((j) => j.id)).size).toBe(6);
  await a.close();
  await b.close();
  rmSync(dir, { recursive: true, force: true });
});

it('sqlite: publishes sharing a group commit write one full-text segment per index, not one per object', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-store-'));
  const path = join(dir, 'board.db');
  const store = new SqliteStore(path);
  await store.migrate();
  // Merging off, so that every segment written stays to be counted.
  const other = new Database(path);
  for (const fts of ['objects_fts', 'objects_fts_stem']) other.exec(`INSERT INTO ${fts} (${fts}, rank) VALUES ('automerge', 0)`);
  const rows = () => (other.prepare('SELECT (SELECT count(*) FROM objects_fts_data) + (SELECT count(*) FROM objects_fts_stem_data) AS n').get() as { n: number }).n;
  const before = rows();
  const live = { now: Date.now(), disputeMinContradictions: 2 };
  const ids = Array.from({ length: 10 }, (_, i) => `01J000000000000000000000${String(i).padStart(2, '0')}`);
  // Asked for in one turn of the event loop: one batch, one transaction. Half come with their
  // vectors, which are stored in the batch too, and half join the embedding queue.
  await Promise.all(
    ids.map((id, i) => {
      const o = { ...newRow(id, live.now), content: `segment count ${i}` };
      return i % 2 ? publishObject(store, o, live) : store.publish(o, live, eventOf('created', o, live.now), { model: 'm', vector: Float32Array.of(1, i) });
    }),
  );
  // A segment of a few objects is one leaf row per index (and the structure record, rewritten in place).
  expect(rows() - before).toBe(2);
  const hits = await store.search.lexical({ live, terms: ['segment', 'count'], limit: 20 });
  expect(hits.map((h) => h.id).sort()).toEqual(ids);
  const stemmed = await store.search.lexical({ live, terms: ['counts'], limit: 20, stemmed: true });
  expect(stemmed).toHaveLength(10);
  expect(await store.embeddings.size()).toBe(5);
  expect(await store.search.semantic({ live, vector: Float32Array.of(1, 0), model: 'm', limit: 20 })).toHaveLength(5);
  other.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A store on a new file holding `count` objects without replies, each saying `pool exhausted`. */
async function seededFile(count: number) {
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-store-'));
  const path = join(dir, 'board.db');
  const store = new SqliteStore(path);
  await store.migrate();
  const live = { now: Date.now(), disputeMinContradictions: 2 };
  const ids = Array.from({ length: count }, (_, i) => `01J00000000000000000000${String(i).padStart(3, '0')}`);
  for (const [i, id] of ids.entries()) await publishObject(store, { ...newRow(id, live.now), content: `pool exhausted ${i}` }, live);
  return { dir, path, store, live, ids };
}

it('sqlite: with statistics (ANALYZE) an object read counts replies through the parent index, never a scan', async () => {
  const { dir, path, store, live, ids } = await seededFile(200);
  const other = new Database(path);
  other.exec('ANALYZE');
  // Every parent_id is NULL: the statistics say the parent index cannot narrow anything.
  expect(other.prepare("SELECT stat FROM sqlite_stat1 WHERE idx = 'objects_parent_id'").pluck().get()).toMatch(/^200 200/);
  const plan = (sql: string) => (other.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ id: ids[0], now: live.now }) as { detail: string }[]).map((r) => r.detail);
  const read = plan(`SELECT ${SELECT_OBJECT} FROM objects o WHERE o.id = @id`);
  expect(read).toContain('SEARCH r USING INDEX objects_parent_id (parent_id=?)');
  // Without the index named, this planner scans every row for each object read.
  expect(plan(`SELECT ${SELECT_OBJECT.replace(' INDEXED BY objects_parent_id', '')} FROM objects o WHERE o.id = @id`)).toContain('SCAN r');
  other.close();
  // The store, on its own connection, reads the analyzed file as before.
  expect((await store.objects.getMany(ids.slice(0, 3), live)).map((o) => [o.id, o.replyCount])).toEqual(ids.slice(0, 3).map((id) => [id, 0]));
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

it("sqlite: a start drops an ANALYZE's sqlite_stat4 samples and keeps its sqlite_stat1 counts", async () => {
  const { dir, path, store: first, live } = await seededFile(50);
  await first.close();
  const other = new Database(path);
  other.exec('ANALYZE');
  const count = (table: string) => other.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  // This SQLite keeps samples, for the FTS5 index's own table too.
  expect(other.prepare("SELECT count(*) FROM sqlite_stat4 WHERE tbl = 'objects_fts_idx'").pluck().get()).toBeGreaterThan(0);
  const counts = count('sqlite_stat1');
  const store = new SqliteStore(path);
  await store.migrate();
  expect(count('sqlite_stat4')).toBe(0);
  expect(count('sqlite_stat1')).toBe(counts);
  // And the store searches the file as before.
  expect(await store.search.lexical({ live, terms: ['pool', 'exhausted'], limit: 100, allTerms: true })).toHaveLength(50);
  other.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

it('sqlite: each handle keeps its in-memory vectors current with the others’ writes, through the change log', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-store-'));
  const path = join(dir, 'board.db');
  const a = new SqliteStore(path);
  const b = new SqliteStore(path);
  try {
    await a.migrate();
    expect(b.capabilities.vectors).toEqual({ available: true, answeredBy: 'process-memory' });
    const live = { now: Date.now(), disputeMinContradictions: 2 };
    const id = (i: number) => `01J0000000000000000000000${i}`;
    for (let i = 1; i <= 3; i++) await publishObject(a, newRow(id(i), live.now), live);
    const q = { live, vector: Float32Array.of(1, 0), model: 'm', limit: 5 };
    const nearest = async () => (await b.search.semantic(q)).map((h) => h.id);
    // b loads its copy (one vector), then a saves another: b's next query has it.
    await a.embeddings.save('m', [{ id: id(1), vector: Float32Array.of(1, 0) }]);
    expect(await nearest()).toEqual([id(1)]);
    await a.embeddings.save('m', [{ id: id(2), vector: Float32Array.of(0.8, 0.6) }]);
    expect(await nearest()).toEqual([id(1), id(2)]);
    // A vector replaced (nearer now), one dropped, one moved to another model.
    await a.embeddings.save('m', [{ id: id(2), vector: Float32Array.of(2, 0.01) }, { id: id(1), vector: null }]);
    expect(await nearest()).toEqual([id(2)]);
    await a.embeddings.save('m', [{ id: id(3), vector: Float32Array.of(0, 1) }]);
    await a.embeddings.save('other', [{ id: id(2), vector: Float32Array.of(1, 0) }]);
    expect(await nearest()).toEqual([id(3)]);
    expect((await b.search.semantic({ ...q, model: 'other' })).map((h) => h.id)).toEqual([id(2)]);
    // The log pruned past what b last read: b cannot replay it, and reloads instead.
    const raw = new Database(path);
    raw.exec('DELETE FROM vector_changes');
    raw.close();
    await a.embeddings.save('m', [{ id: id(1), vector: Float32Array.of(1, 0) }]);
    await a.embeddings.save('m', [{ id: id(3), vector: null }]);
    expect(await nearest()).toEqual([id(1)]);
  } finally {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

it('sqlite: a board made before stored standing upgrades with its live set, topic counts and shown trust intact', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-store-'));
  const path = join(dir, 'board.db');
  const now = Date.now();
  // The schema and rows as version 9 left them: trust copied onto objects, live facts on topic rows.
  const old = new Database(path);
  old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  for (const m of migrations.filter((m) => m.version <= 9)) {
    old.exec(m.sql);
    old.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, now);
  }
  const add = old.prepare(
    `INSERT INTO objects (id, type, title, content, topics, topics_text, author_id, author_trust, author_base_trust, created_at, expires_at,
       verification_count, contradiction_count, hidden, dedupe_key) VALUES (@id, 'finding', 't', @id, '["x"]', 'x', @author, @trust, @base, @now, @expires, @v, @c, @hidden, @id)`,
  );
  const topic = old.prepare('INSERT INTO object_topics (topic, object_id, expires_at, hidden, contradiction_count, verification_count) VALUES (?, ?, ?, ?, ?, ?)');
  const rows = oldRows(now);
  for (const r of rows) {
    add.run({ ...r, hidden: r.hidden ? 1 : 0, now });
    topic.run('x', r.id, r.expires, r.hidden ? 1 : 0, r.c, r.v);
  }
  old.prepare('INSERT INTO reputable_authors VALUES (?, ?)').run('star', now);
  old.close();

  const store = new SqliteStore(path);
  await expectUpgraded(store, now);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});
