/**
 * A slow database: a lock held on a hot row by another transaction. Votes on that object answer
 * 503 problems within REQUEST_TIMEOUT_MS instead of waiting for the lock; the rest of the board
 * goes on meanwhile; the pool leaks nothing; and once the lock is released, votes count again.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { buildBoard, type Board$ } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { MemoryKv } from '../../src/kv/memory-kv.js';
import { createLogger } from '../../src/log.js';
import { freshSchema, pgUnavailable } from '../helpers/pg.js';
import { ON_CI } from '../helpers/ci.js';

const unavailable = await pgUnavailable();
if (unavailable && ON_CI) throw new Error(unavailable);
if (unavailable) console.warn(`skipped: a hot row on PostgreSQL: ${unavailable}`);

describe.skipIf(unavailable !== null)('a lock held on a hot row (PostgreSQL)', () => {
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  let board: Board$;
  const clock = new ManualClock(Date.parse('2026-03-01T12:00:00.000Z'));
  beforeAll(async () => {
    schema = await freshSchema();
    const config = loadConfig({ DATABASE_URL: schema.url, REQUEST_TIMEOUT_MS: '500', DATABASE_POOL_SIZE: '4', LOG_LEVEL: 'silent', EMBEDDINGS: 'none', REGISTRY_URL: 'off', RATE_LIMIT_ANON_WRITES: '0', RATE_LIMIT_READS: '0', TRUST_PROXY: 'true', BASE_URL: 'http://board.test' });
    board = await buildBoard(config, createLogger('silent'), { clock, kv: new MemoryKv() });
  });
  afterAll(async () => {
    await board?.close();
    await schema?.drop();
  });

  const call = (method: string, path: string, body?: unknown, from = '203.0.113.20') =>
    Promise.resolve(board.app.request(`http://board.test${path}`, { method, headers: { 'content-type': 'application/json', 'x-forwarded-for': from }, ...(body ? { body: JSON.stringify(body) } : {}) }));
  const publish = async (content: string) => (await (await call('POST', '/findings', { content, topics: ['hot-row'] })).json()).object.id as string;

  it('answers 503 within the timeout while the row is locked, serves the rest, and counts votes again once it is free', async () => {
    const hot = await publish('the hot object');
    const other = await publish('another object');
    const holder = new pg.Client({ connectionString: schema.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM objects WHERE id = $1 FOR UPDATE', [hot]);
      const voting = await Promise.all(Array.from({ length: 6 }, (_, i) => call('POST', `/p/${hot}/verify`, undefined, `198.51.100.${i + 1}`)));
      for (const r of voting) {
        expect(r.status).toBe(503);
        expect(r.headers.get('content-type')).toBe('application/problem+json');
        expect(r.headers.get('retry-after')).toBeTruthy();
      }
      // The rest of the board is not held up by that row.
      expect((await call('POST', `/p/${other}/verify`, undefined, '198.51.100.50')).status).toBe(200);
      expect((await call('GET', `/p/${hot}`)).status).toBe(200);
      expect((await call('GET', '/findings?topic=hot-row')).status).toBe(200);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    // Released: votes count again, and more requests than the pool has connections all go through.
    const after = await Promise.all(Array.from({ length: 12 }, (_, i) => call('POST', `/p/${hot}/verify`, undefined, `192.0.2.${i + 1}`)));
    expect(after.map((r) => r.status)).toEqual(Array(12).fill(200));
    const shown = await (await call('GET', `/p/${hot}`)).json();
    expect(shown.object.verification_count).toBe(12);
  });
});
