/**
 * Spaces across two board processes on one PostgreSQL database and one Redis: what one instance
 * is told (a publish, a revocation) every other instance holds at once, and a space's objects
 * and events never reach anyone outside it on either.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock as clock } from '../../src/clock.js';
import { UlidGenerator } from '../../src/domain/ulid.js';
import { PgStore } from '../../src/store/postgres/pg-store.js';
import { PoolSession } from '../../src/store/postgres/pg-session.js';
import { Spaces } from '../../src/service/spaces.js';
import { startServer } from '../helpers/cli.js';
import { freshSchema, pgUnavailable } from '../helpers/pg.js';
import { readSse } from '../helpers/sse.js';

const pgDown = await pgUnavailable();
if (pgDown) console.warn(`skipping the spaces instance tests: ${pgDown}`);
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe.skipIf(pgDown !== null)('spaces on two instances (PostgreSQL + Redis)', () => {
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  let store: PgStore;
  let spaces: Spaces;
  const boards: Awaited<ReturnType<typeof startServer>>[] = [];
  const MARK = `inst-marker-${randomBytes(4).toString('hex')}`;
  const admin = { author: { id: 'kid-instances-admin', trustLevel: 'signed' as const, domain: null }, voterId: 'kid-instances-admin' };

  beforeAll(async () => {
    schema = await freshSchema();
    const env = { DATABASE_URL: schema.url, REDIS_URL, REDIS_PREFIX: `agentboard-spaces-${randomBytes(4).toString('hex')}:`, EMBEDDINGS: 'none', RATE_LIMIT_READS: '0', TRUST_PROXY: 'true' };
    boards.push(await startServer(env));
    boards.push(await startServer(env));
    // The admin's own routes are tested over HTTP elsewhere; here the grants are made in the database the instances share.
    store = new PgStore(new PoolSession({ url: schema.url, max: 2, connectTimeoutMs: 5000 }));
    spaces = new Spaces({ store, clock, ids: new UlidGenerator(clock), limits: { tokenMaxSeconds: 3600, tokensMax: 10, membersMax: 10, perKeyMax: 10 } });
    await spaces.create(admin, { slug: 'crew', name: 'Crew' });
  }, 60_000);
  afterAll(async () => {
    for (const b of boards) b.child.kill('SIGKILL');
    await store?.close();
    await schema?.drop();
  });

  const call = async (i: number, method: string, path: string, token?: string, body?: unknown) => {
    const r = await fetch(`${boards[i]!.url}${path}`, {
      method,
      headers: { 'x-forwarded-for': `10.${randomBytes(3).join('.')}`, ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: r.status, text: await r.text() };
  };

  it("writes on one instance, reads and streams on the other for the space's tokens only, and a revocation holds on both at once", async () => {
    const writer = (await spaces.createToken(admin, 'crew', { name: 'w', role: 'writer' })).secret;
    const reader = (await spaces.createToken(admin, 'crew', { name: 'r', role: 'reader' })).secret;
    const open = (query: string, token?: string) =>
      fetch(`${boards[1]!.url}/events${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }).then(async (res) => {
        expect(res.status).toBe(200);
        const r = readSse(res);
        await r.waitForComment((c) => c === 'agentboard events');
        return r;
      });
    const spaceStream = await open('?space=crew', reader);
    const commonsStream = await open('');
    try {
      const made = await call(0, 'POST', '/findings', writer, { content: `crew note ${MARK}`, topics: ['crew-notes'], space: 'crew' });
      expect(made.status, made.text).toBe(201);
      const id = JSON.parse(made.text).object.id as string;
      await call(0, 'POST', '/findings', undefined, { content: 'a public note', topics: ['crew-notes'] });
      expect((await spaceStream.waitFor(1))[0]!.data.object.id).toBe(id);
      await commonsStream.waitFor(1);
      expect(JSON.stringify(commonsStream.events)).not.toContain(MARK);
      expect((await call(1, 'GET', `/p/${id}`, reader)).status).toBe(200);
      expect((await call(1, 'GET', '/search?q=crew+note&mode=lexical&space=crew', reader)).text).toContain(MARK);
      for (const i of [0, 1]) {
        const outsider = await call(i, 'GET', `/p/${id}`);
        expect(outsider.status).toBe(404);
        for (const path of ['/findings', '/search?q=crew+note&mode=lexical', '/topics/crew-notes', '/topics']) expect((await call(i, 'GET', path)).text, path).not.toContain(MARK);
      }
      const [listed] = (await spaces.tokens(admin, 'crew')).filter((t) => t.name === 'r');
      await spaces.revokeToken(admin, 'crew', listed!.id);
      for (const i of [0, 1]) expect((await call(i, 'GET', `/p/${id}`, reader)).status).toBe(401);
    } finally {
      await spaceStream.close();
      await commonsStream.close();
    }
  });
});
