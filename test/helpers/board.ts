/**
 * A fresh board for a test: its own SQLite file (or, when AGENTBOARD_TEST_STORE=postgres, its
 * own schema on the machine's PostgreSQL), a manual clock, the real app in-process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBoard, type Board$ } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/log.js';
import { MemoryKv } from '../../src/kv/memory-kv.js';
import { freshSchema } from './pg.js';

/** Set by the `postgres` vitest project: the same API tests, on PostgreSQL. */
export const ON_POSTGRES = process.env.AGENTBOARD_TEST_STORE === 'postgres';

export const T0 = Date.parse('2026-03-01T12:00:00.000Z');

export interface TestBoard extends Board$ {
  clock: ManualClock;
  dir: string;
  /** app.request with a JSON body and a client address (X-Forwarded-For; TRUST_PROXY is on). */
  call(method: string, path: string, opts?: { body?: unknown; raw?: string; headers?: Record<string, string>; from?: string }): Promise<Response>;
  json<T = any>(method: string, path: string, opts?: Parameters<TestBoard['call']>[2]): Promise<{ status: number; body: T; res: Response }>;
  dispose(): Promise<void>;
}

export async function makeTestBoard(env: Record<string, string> = {}): Promise<TestBoard> {
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-test-'));
  const pg = ON_POSTGRES ? await freshSchema() : null;
  const config = loadConfig({
    DATABASE_URL: pg ? pg.url : `sqlite:${join(dir, 'board.db')}`,
    BASE_URL: 'http://board.test',
    TRUST_PROXY: 'true',
    RATE_LIMIT_READS: '0',
    RATE_LIMIT_ANON_WRITES: '0',
    LOG_LEVEL: 'silent',
    EMBEDDINGS: 'none',
    ...env,
  });
  const clock = new ManualClock(T0);
  // Rate limits and caches in process: each test starts with its own, on either store.
  const board = await buildBoard(config, createLogger('silent'), { clock, ...(env.REDIS_URL ? {} : { kv: new MemoryKv() }) });
  const call: TestBoard['call'] = (method, path, opts = {}) => {
    const headers: Record<string, string> = { 'x-forwarded-for': opts.from ?? '203.0.113.1', ...opts.headers };
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    return Promise.resolve(board.app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) }));
  };
  return {
    ...board,
    clock,
    dir,
    call,
    async json(method, path, opts) {
      const res = await call(method, path, opts);
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, res };
    },
    async dispose() {
      await board.close();
      await pg?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const OBJECT_FIELDS = [
  'author',
  'content',
  'contradiction_count',
  'corrections',
  'created_at',
  'expires_at',
  'flags',
  'id',
  'last_verified_at',
  'parent_id',
  'promoted_to',
  'reply_count',
  'source_url',
  'space',
  'state',
  'superseded_by',
  'supersedes',
  'title',
  'topics',
  'type',
  'url',
  'verification_count',
].sort();
