import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SearchThread } from '../../src/store/sqlite/search-thread.js';
import { SqliteStore, type SqliteStoreOptions } from '../../src/store/sqlite/sqlite-store.js';
import { publishObject } from '../helpers/publish.js';

const live = () => ({ now: Date.now(), disputeMinContradictions: 2 });

const newRow = (n: number, content: string) => ({
  id: `01J00000000000000000000${String(n).padStart(3, '0')}`,
  type: 'finding' as const,
  title: content.slice(0, 40),
  content,
  topics: ['search'],
  sourceUrl: null,
  parentId: null,
  author: null,
  createdAt: Date.now(),
  expiresAt: Date.now() + 60_000,
  injectionSuspected: false,
  dedupeKey: `k${n}`,
});

/** Two stores on one migrated file, the second opened with `opts`, both closed after `fn`. */
async function twoHandles(path: string, opts: SqliteStoreOptions, fn: (first: SqliteStore, second: SqliteStore) => Promise<void>): Promise<void> {
  const first = new SqliteStore(path);
  const second = new SqliteStore(path, opts);
  await first.migrate();
  try {
    await fn(first, second);
  } finally {
    await first.close();
    await second.close();
  }
}

describe('SQLite search thread', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentboard-search-thread-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs statements on a read-only connection of its own, with SQLite’s error codes', async () => {
    const path = join(dir, 'board.db');
    const store = new SqliteStore(path);
    await store.migrate();
    const thread = new SearchThread(path, 1000, 512);
    try {
      expect(await thread.rows('SELECT @a + 1 AS x, @b AS y', { a: 41, b: 'text' })).toEqual([[42, 'text']]);
      // Its page cache is the one it was given (it counts in the process's memory).
      expect(await thread.rows('SELECT cache_size FROM pragma_cache_size()', {})).toEqual([[-512]]);
      await expect(thread.rows("INSERT INTO settings (key, value) VALUES ('k', 'v') RETURNING key", {})).rejects.toMatchObject({ code: 'SQLITE_READONLY' });
      await expect(thread.rows('SELEKT 1', {})).rejects.toMatchObject({ code: 'SQLITE_ERROR' });
      // Still answering after those errors.
      expect(await thread.rows('SELECT count(*) FROM objects', {})).toEqual([[0]]);
    } finally {
      await thread.stop();
      await store.close();
    }
  });

  it('sees each publish as soon as it is acknowledged, and ranks as the request thread does', async () => {
    await twoHandles(join(dir, 'board.db'), { searchThread: false }, async (threaded, inline) => {
      for (let n = 0; n < 30; n++) {
        await publishObject(threaded, newRow(n, `pool exhausted under load, case ${n}${n % 3 ? ' with retries' : ''}`), live());
        const q = { live: live(), terms: ['pool', 'exhausted'], limit: 100, window: 300 };
        const hits = await threaded.search.lexical(q);
        expect(hits).toHaveLength(n + 1);
        expect(await inline.search.lexical(q)).toEqual(hits);
        const narrowed = { ...q, terms: ['retries', 'case'], allTerms: true };
        expect(await threaded.search.lexical(narrowed)).toEqual(await inline.search.lexical(narrowed));
      }
    });
  });

  it("sees another handle's publishes on the same file as soon as they are acknowledged", async () => {
    await twoHandles(join(dir, 'board.db'), {}, async (writer, reader) => {
      for (let n = 0; n < 10; n++) {
        await publishObject(writer, newRow(n, `gateway timeout upstream ${n}`), live());
        expect(await reader.search.lexical({ live: live(), terms: ['gateway', 'timeout'], limit: 100, window: 300, allTerms: true })).toHaveLength(n + 1);
      }
    });
  });

  it('fails what a thread that ended owed, and the next statement starts another', async () => {
    const path = join(dir, 'later.db');
    const thread = new SearchThread(path, 1000, 2048);
    try {
      // No file yet: the thread cannot open it, and ends.
      await expect(thread.rows('SELECT 1', {})).rejects.toThrow();
      await expect(thread.rows('SELECT 1', {})).rejects.toThrow();
      const db = new Database(path);
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (7)');
      expect(await thread.rows('SELECT x FROM t', {})).toEqual([[7]]);
      db.close();
    } finally {
      await thread.stop();
    }
  });

  it('ends with the store, and a stopped thread starts again when asked', async () => {
    const path = join(dir, 'board.db');
    const store = new SqliteStore(path);
    await store.migrate();
    await publishObject(store, newRow(1, 'connection refused on port 5432'), live());
    expect(await store.search.lexical({ live: live(), terms: ['refused'], limit: 10, window: 300 })).toHaveLength(1);
    await store.close();
    const thread = new SearchThread(path, 1000, 2048);
    expect(await thread.rows('SELECT count(*) FROM objects', {})).toEqual([[1]]);
    await thread.stop();
    expect(await thread.rows('SELECT count(*) FROM objects', {})).toEqual([[1]]);
    await thread.stop();
  });
});
