/**
 * A board on Redis whose Redis crashes and comes back empty. Reads and anonymous writes go on;
 * a signature's nonce that cannot be checked is refused (503), never waved through; and once
 * Redis is back, no signature made before it came back is accepted, while a fresh one is.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, publicJwkOf, signRequest, type PrivateJwk } from '../../src/identity/agent-sign.mjs';
import { ManualClock } from '../../src/clock.js';
import { buildBoard } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { PrivateRedis } from '../helpers/private-redis.js';
import { serveFetch, type Running } from '../helpers/http-server.js';
import { signed } from '../helpers/signed.js';

/** A signed request as sent: it can be sent again, byte for byte. */
async function signedRequest(b: TestBoard, key: PrivateJwk, path: string, body: unknown): Promise<() => Promise<Response>> {
  const text = JSON.stringify(body);
  const request = new Request(`http://board.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7' }, body: text });
  const s = await signRequest(request, { privateJwk: key, now: b.clock.now() });
  return () => Promise.resolve(b.app.request(`http://board.test${path}`, { method: 'POST', headers: s.headers, body: text }));
}

const finding = (content: string) => ({ content, topics: ['redis-outage'] });

describe('a Redis outage on a board that shares its state through Redis', () => {
  let redis: PrivateRedis;
  let b: TestBoard;
  let key: PrivateJwk;
  beforeAll(async () => {
    redis = await PrivateRedis.start();
    b = await makeTestBoard({ REDIS_URL: redis.url, REDIS_PREFIX: `outage-${randomUUID()}:`, RATE_LIMIT_ANON_WRITES: '3' });
    key = generateKey().privateJwk;
    const registered = await (await signedRequest(b, key, '/keys', { jwk: publicJwkOf(key) }))();
    expect(registered.status).toBe(201);
  });
  afterAll(async () => {
    await b.dispose();
    await redis.kill();
  });

  it('refuses what it cannot check, keeps serving the rest, and accepts only fresh signatures once Redis is back', async () => {
    const beforeOutage = await signedRequest(b, key, '/findings', finding('signed before the outage'));
    expect((await beforeOutage()).status).toBe(201);
    const replay = await beforeOutage();
    expect(replay.status).toBe(401);
    expect((await replay.json()).type).toMatch(/signature-invalid$/);

    await redis.kill();
    const duringOutage = await signedRequest(b, key, '/findings', finding('signed during the outage'));
    const refused = await duringOutage();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect((await beforeOutage()).status).toBe(503);
    // Reads and unsigned writes do not need the nonce record; rate limits are skipped (fail open), and health says why.
    expect((await b.call('GET', '/findings')).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await b.call('POST', '/findings', { body: finding(`anonymous during the outage ${i}`), from: '198.51.100.77' })).status).toBe(201);
    expect((await b.json('GET', '/health')).body).toMatchObject({ status: 'degraded', kv: 'error' });

    b.clock.advance(2000);
    await redis.start();
    // Back within 5 s, with no restart of the board: a freshly signed request goes through.
    let fresh: Response | null = null;
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      fresh = await (await signedRequest(b, key, '/findings', finding(`signed after the outage ${Date.now()}`)))();
      if (fresh.status !== 503) break;
    }
    expect(fresh!.status).toBe(201);
    // Rate limits count again, with no restart.
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await b.call('POST', '/findings', { body: finding(`anonymous after the outage ${i}`), from: '198.51.100.78' })).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    expect((await b.json('GET', '/health')).body).toMatchObject({ status: 'ok', kv: 'ok' });

    // Redis came back empty: what was claimed before is forgotten, so nothing signed before is taken.
    for (const old of [beforeOutage, duringOutage]) {
      const again = await old();
      expect(again.status).toBe(401);
      expect((await again.json()).type).toMatch(/signature-expired$/);
    }
    const listed = await b.json('GET', '/findings?topic=redis-outage');
    expect(listed.body.objects.map((o: { content: string }) => o.content).filter((c: string) => c.includes('before the outage'))).toHaveLength(1);
  });
});

describe('key directories while Redis is down', () => {
  let redis: PrivateRedis;
  let b: TestBoard;
  let good: Running;
  let broken: Running;
  const key = generateKey();
  const hits = (r: Running) => r.hits.filter((h) => h.includes('http-message-signatures-directory')).length;
  beforeAll(async () => {
    redis = await PrivateRedis.start();
    good = await serveFetch(() => Response.json({ keys: [publicJwkOf(key.privateJwk)] }, { headers: { 'cache-control': 'max-age=60' } }));
    broken = await serveFetch(() => new Response('down', { status: 500 }));
    b = await makeTestBoard({ REDIS_URL: redis.url, REDIS_PREFIX: `keydir-${randomUUID()}:`, ALLOW_PRIVATE_NETWORK: 'true' });
  });
  afterAll(async () => {
    await b.dispose();
    await Promise.all([good.close(), broken.close(), redis.kill()]);
  });

  it("are remembered in the instance's own memory, so a flood of signed requests fetches each once", async () => {
    await redis.kill();
    const send = (agent: string, n: number) => signed(b, 'POST', '/findings', { key, agent, body: finding(`from ${agent} ${n}`) });
    for (let n = 0; n < 3; n++) {
      // Listed, but the nonce cannot be claimed: refused (503) after the key was found.
      expect((await send(good.origin, n)).status).toBe(503);
      const failing = await send(broken.origin, n);
      expect(failing.status).toBe(401);
      expect(failing.body.type).toMatch(/key-directory-unavailable$/);
    }
    expect([hits(good), hits(broken)]).toEqual([1, 1]);
    // Past each lifetime, asked again.
    b.clock.advance(61_000);
    await send(good.origin, 3);
    await send(broken.origin, 3);
    expect([hits(good), hits(broken)]).toEqual([2, 2]);
  });
});

describe('a board without Redis, restarted', () => {
  it('takes no signature made before it started: its record of used signatures began then', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentboard-restart-'));
    const config = loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'board.db')}`, BASE_URL: 'http://board.test', LOG_LEVEL: 'silent', EMBEDDINGS: 'none', REGISTRY_URL: 'off' });
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00.000Z'));
    const send = (app: { request: (url: string, init: RequestInit) => Response | Promise<Response> }, signed: { headers: Headers }, text: string) =>
      Promise.resolve(app.request('http://board.test/findings', { method: 'POST', headers: signed.headers, body: text }));
    const sign = async (text: string, path = '/findings') =>
      signRequest(new Request(`http://board.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text }), { privateJwk: key, now: clock.now() });
    const key = generateKey().privateJwk;
    try {
      const first = await buildBoard(config, createLogger('silent'), { clock });
      const keyBody = JSON.stringify({ jwk: publicJwkOf(key) });
      const reg = await sign(keyBody, '/keys');
      expect((await first.app.request('http://board.test/keys', { method: 'POST', headers: reg.headers, body: keyBody })).status).toBe(201);
      const text = JSON.stringify(finding('signed before the restart'));
      const before = await sign(text);
      expect((await send(first.app, before, text)).status).toBe(201);
      expect((await send(first.app, before, text)).status).toBe(401);
      await first.close();

      clock.advance(2000);
      const second = await buildBoard(config, createLogger('silent'), { clock });
      try {
        const replay = await send(second.app, before, text);
        expect(replay.status).toBe(401);
        expect((await replay.json()).type).toMatch(/signature-expired$/);
        const freshText = JSON.stringify(finding('signed after the restart'));
        expect((await send(second.app, await sign(freshText), freshText)).status).toBe(201);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
