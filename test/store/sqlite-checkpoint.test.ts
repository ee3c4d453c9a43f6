/**
 * SQLITE_CHECKPOINT_MS: the write-ahead log is checkpointed by a thread of the store's own, not
 * inside commits; the store's close is still the file's last, and a thread that dies hands the
 * checkpoints back to the commits.
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKSTOP_PAGES, Checkpointer, DEFAULT_AUTOCHECKPOINT_PAGES } from '../../src/store/sqlite/checkpointer.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { runStoreContract } from './store.case.js';
import { publishObject } from '../helpers/publish.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-ckpt-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const until = async (what: string, ok: () => boolean, ms = 5000) => {
  for (const end = Date.now() + ms; !ok(); ) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

const live = { now: Date.now(), disputeMinContradictions: 3 };
let n = 0;
const publish = (store: SqliteStore) => {
  const id = `01K${String(++n).padStart(23, '0')}`;
  return publishObject(
    store,
    {
      id,
      type: 'finding',
      title: `checkpoint ${n}`,
      content: `a finding written to the log, number ${n} `.repeat(20),
      topics: ['ckpt'],
      sourceUrl: null,
      parentId: null,
      author: null,
      createdAt: live.now,
      expiresAt: live.now + 86_400_000,
      dedupeKey: id,
      injectionSuspected: false,
    },
    live,
  );
};

describe('write-ahead log checkpoints on their own thread', () => {
  it("copy committed pages into the database file without a commit reaching SQLite's threshold", async () => {
    const file = join(tempDir(), 'board.db');
    const store = new SqliteStore(file, { checkpointMs: 20 });
    await store.migrate();
    const before = statSync(file).size;
    for (let i = 0; i < 20; i++) await publish(store);
    // Far fewer pages than either threshold: only the thread can have put them in the file.
    await until('the database file holds the published pages', () => statSync(file).size > before);
    await store.close();
  });

  it('without the setting, those pages stay in the log until a commit crosses the threshold', async () => {
    const file = join(tempDir(), 'board.db');
    const store = new SqliteStore(file);
    await store.migrate();
    const before = statSync(file).size;
    for (let i = 0; i < 20; i++) await publish(store);
    await new Promise((r) => setTimeout(r, 200));
    expect(statSync(file).size).toBe(before);
    await store.close();
  });

  it("close() ends the thread's connection first, so closing the store removes the log as ever", async () => {
    const file = join(tempDir(), 'board.db');
    const store = new SqliteStore(file, { checkpointMs: 20 });
    await store.migrate();
    await publish(store);
    expect(existsSync(`${file}-wal`)).toBe(true);
    await store.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('a thread that fails hands the checkpoints back to the commits, and says why', async () => {
    const dir = tempDir();
    const db = new Database(join(dir, 'board.db'));
    db.pragma('journal_mode = WAL');
    // The thread's file is no database: its first checkpoint throws.
    writeFileSync(join(dir, 'not-a-db'), 'this is not a database file, whatever its name says '.repeat(100));
    const warnings: { message: string; err: unknown }[] = [];
    const checkpointer = new Checkpointer(db, join(dir, 'not-a-db'), 10, (message, err) => warnings.push({ message, err }));
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_PAGES);
    await until('the thread has failed', () => warnings.length > 0);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(DEFAULT_AUTOCHECKPOINT_PAGES);
    expect(warnings[0]!.message).toMatch(/checkpoint thread ended/);
    expect(String(warnings[0]!.err)).toMatch(/SQLITE_NOTADB: file is not a database/);
    await checkpointer.stop();
    db.close();
  });
});

// Every store behaviour, with the thread checkpointing as the store works.
runStoreContract({
  name: 'sqlite (file, SQLITE_CHECKPOINT_MS=5)',
  async makeStore() {
    const dir = mkdtempSync(join(tmpdir(), 'agentboard-ckpt-'));
    const store = new SqliteStore(join(dir, 'board.db'), { checkpointMs: 5 });
    return {
      store,
      async dispose() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
