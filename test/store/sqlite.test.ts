import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { runStoreContract } from './store.case.js';

runStoreContract({
  name: 'sqlite (file)',
  async makeStore() {
    const dir = mkdtempSync(join(tmpdir(), 'agentboard-store-'));
    const store = new SqliteStore(join(dir, 'nested', 'board.db'));
    return {
      store,
      async dispose() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

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
  const held = holder.objects.bulkImport(waiting());
  await new Promise((resolve) => setTimeout(resolve, 10));
  await expect(waiter.objects.insert(newRow('01J0000000000000000000000C', live.now), live)).rejects.toMatchObject({ code: 'unavailable' });
  release();
  await held;
  expect((await waiter.objects.insert(newRow('01J0000000000000000000000D', live.now), live)).created).toBe(true);
  await holder.close();
  await waiter.close();
  rmSync(dir, { recursive: true, force: true });
});

it('sqlite: two handles on one file claim disjoint embedding jobs (leases are in the database)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-store-'));
  const path = join(dir, 'board.db');
  const a = new SqliteStore(path);
  const b = new SqliteStore(path);
  await a.migrate();
  const live = { now: Date.now(), disputeMinContradictions: 2 };
  for (let i = 0; i < 6; i++) await a.objects.insert(newRow(`01J000000000000000000000${String(i).padStart(2, '0')}`, live.now), live);
  const [fromA, fromB] = [await a.embeddings.claim(live, 4, 60_000), await b.embeddings.claim(live, 4, 60_000)];
  expect(fromA).toHaveLength(4);
  expect(fromB).toHaveLength(2);
  expect(new Set([...fromA, ...fromB].map((j) => j.id)).size).toBe(6);
  await a.close();
  await b.close();
  rmSync(dir, { recursive: true, force: true });
});
