import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeTestBoard } from '../helpers/board.js';

const body = () => ({ content: `note ${randomUUID()}`, topics: ['x'] });

describe('rate limits through the kv port', () => {
  it('two boards sharing Redis share one budget per client', async () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_ANON_WRITES: '3' };
    const a = await makeTestBoard(env);
    const b = await makeTestBoard(env);
    // A client address of its own, so earlier runs against the same Redis do not count.
    const from = `2001:db8::${randomUUID().slice(0, 4)}`;
    try {
      expect((await a.json('POST', '/findings', { body: body(), from })).status).toBe(201);
      expect((await b.json('POST', '/findings', { body: body(), from })).status).toBe(201);
      const third = await a.json('POST', '/findings', { body: body(), from });
      expect(third.status).toBe(201);
      expect(third.res.headers.get('ratelimit')).toMatch(/^"writes";r=0;/);
      const refused = await b.json('POST', '/findings', { body: body(), from });
      expect(refused.status).toBe(429);
      expect((await a.json('GET', '/health')).body.kv).toBe('ok');
    } finally {
      await a.dispose();
      await b.dispose();
    }
  });

  it('fails open when the kv store is down: requests are served, health says kv error', async () => {
    const board = await makeTestBoard({ RATE_LIMIT_ANON_WRITES: '1', RATE_LIMIT_READS: '1' });
    try {
      await board.services.kv.close();
      expect((await board.json('POST', '/findings', { body: body() })).status).toBe(201);
      expect((await board.json('POST', '/findings', { body: body() })).status).toBe(201);
      expect((await board.json('GET', '/findings')).status).toBe(200);
      const health = await board.json('GET', '/health');
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({ status: 'degraded', kv: 'error', d1: 'ok' });
    } finally {
      await board.dispose();
    }
  });

  it('starts with Redis unreachable and reports it in health', async () => {
    const board = await makeTestBoard({ REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_ANON_WRITES: '5' });
    try {
      expect((await board.json('POST', '/findings', { body: body() })).status).toBe(201);
      const health = await board.json('GET', '/health');
      expect(health.status).toBe(503);
      expect(health.body.kv).toBe('error');
    } finally {
      await board.dispose();
    }
  });
});
