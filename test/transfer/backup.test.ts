/**
 * Backup and restore across engines: a board is backed up while 8 writers publish, the file is
 * restored into an empty database of the other engine, and everything acknowledged before the
 * backup began reads back the same: objects in every state, votes, keys, registry records, the
 * anonymous-voter key and the event cursor.
 */
import { createWriteStream, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { buildBoard, type Board$ } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { generateKey, keyidOf, publicJwkOf, signRequest, type PrivateJwk } from '../../src/identity/agent-sign.mjs';
import { MemoryKv } from '../../src/kv/memory-kv.js';
import { createLogger } from '../../src/log.js';
import { writeBackup } from '../../src/service/transfer/backup.js';
import { RestoreError, restoreBackup } from '../../src/service/transfer/restore.js';
import { ON_CI } from '../helpers/ci.js';
import { runCli, startServer } from '../helpers/cli.js';
import { freshSchema, pgUnavailable } from '../helpers/pg.js';
import { readSse } from '../helpers/sse.js';

const pgDown = await pgUnavailable();
if (pgDown && ON_CI) throw new Error(pgDown);
if (pgDown) console.warn(`skipped: backup across engines: ${pgDown}`);

const dir = mkdtempSync(join(tmpdir(), 'agentboard-backup-'));
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

const clock = new ManualClock(Date.parse('2026-03-01T12:00:00.000Z'));
const base = 'http://board.test';

async function boardOn(kind: 'sqlite' | 'postgres', name: string): Promise<Board$> {
  const pg = kind === 'postgres' ? await freshSchema() : null;
  const config = loadConfig({
    DATABASE_URL: pg ? pg.url : `sqlite:${join(dir, `${name}.db`)}`,
    BASE_URL: base,
    TRUST_PROXY: 'true',
    ADMIN_TOKEN: 'admin-token-for-the-backup-test',
    RATE_LIMIT_READS: '0',
    RATE_LIMIT_ANON_WRITES: '0',
    EMBEDDINGS: 'none',
    REGISTRY_URL: 'off',
    LOG_LEVEL: 'silent',
  });
  const board = await buildBoard(config, createLogger('silent'), { clock, kv: new MemoryKv() });
  cleanups.push(async () => {
    await board.close();
    await pg?.drop();
  });
  return board;
}

/** The same database served again, as after a restart (a restore is made before the board serves it). */
async function restarted(b: Board$): Promise<Board$> {
  await b.close();
  const again = await buildBoard(b.services.config, createLogger('silent'), { clock, kv: new MemoryKv() });
  cleanups.push(() => again.close());
  return again;
}

const send = async (b: Board$, method: string, path: string, o: { body?: unknown; from?: string; key?: PrivateJwk; headers?: Record<string, string> } = {}) => {
  const text = o.body === undefined ? undefined : JSON.stringify(o.body);
  const headers: Record<string, string> = { 'x-forwarded-for': o.from ?? '203.0.113.1', ...(text ? { 'content-type': 'application/json' } : {}), ...o.headers };
  let init: RequestInit = { method, headers, ...(text ? { body: text } : {}) };
  if (o.key) {
    const signed = await signRequest(new Request(`${base}${path}`, init), { privateJwk: o.key, now: clock.now() });
    init = { method, headers: signed.headers, ...(text ? { body: text } : {}) };
  }
  const res = await b.app.request(`${base}${path}`, init);
  const body = await res.text();
  return { status: res.status, body: body ? JSON.parse(body) : null };
};
const finding = (content: string, topics = ['backup']) => ({ content, topics });
/** An answer without what names its request. */
const withoutMeta = (body: Record<string, unknown>) => ({ ...body, meta: undefined });

/** A board with something of everything: keys, objects in every state, replies, votes, registry records, events. */
async function populate(
  b: Board$,
  alice: PrivateJwk,
  bob: PrivateJwk,
  mallory: PrivateJwk,
): Promise<{ ids: string[]; voted: string; hotAddress: string; quarantine: { id: string; object: string; voted: string }; space: { object: string; token: string } }> {
  for (const key of [alice, bob, mallory]) expect((await send(b, 'POST', '/keys', { key, body: { jwk: publicJwkOf(key) } })).status).toBe(201);
  const ids: string[] = [];
  const publish = async (body: unknown, key?: PrivateJwk) => {
    const r = await send(b, 'POST', '/findings', { body, ...(key ? { key } : {}) });
    expect(r.status).toBe(201);
    ids.push(r.body.object.id);
    return r.body.object.id as string;
  };
  const voted = await publish(finding('alice: set busy_timeout before WAL'), alice);
  const withdrawn = await publish(finding('alice: a finding she withdraws'), alice);
  const hidden = await publish(finding('anonymous: a finding a moderator hides'));
  const threaded = await publish(finding('anonymous: a thread with replies'));
  const reply = await send(b, 'POST', `/p/${threaded}/replies`, { body: { content: 'a reply' }, from: '198.51.100.9' });
  expect(reply.status).toBe(201);
  ids.push(reply.body.object.id);
  expect((await send(b, 'POST', `/p/${voted}/verify`, { key: bob, body: { note: 'works', evidence_url: 'https://example.org/log' } })).status).toBe(200);
  for (const from of ['198.51.100.1', '198.51.100.2']) expect((await send(b, 'POST', `/p/${voted}/verify`, { from })).status).toBe(200);
  expect((await send(b, 'POST', `/p/${threaded}/contradict`, { from: '198.51.100.3', body: { note: 'no' } })).status).toBe(200);
  expect((await send(b, 'DELETE', `/p/${withdrawn}`, { key: alice })).status).toBe(200);
  expect((await send(b, 'POST', `/admin/p/${hidden}/hide`, { headers: { authorization: 'Bearer admin-token-for-the-backup-test' } })).status).toBe(200);
  // A quarantined source: its object hidden, its verification off the thread's counts.
  const poisoned = await publish(finding('mallory: a poisoned finding'), mallory);
  expect((await send(b, 'POST', `/p/${threaded}/verify`, { key: mallory })).status).toBe(200);
  const q = await send(b, 'POST', '/admin/quarantine', { body: { keyid: keyidOf(mallory), reason: 'poison' }, headers: { authorization: 'Bearer admin-token-for-the-backup-test' } });
  expect(q.status).toBe(201);
  const registry = b.services.store.registry;
  const entry = (name: string) => ({ name, version: '1.0.0', title: 'A server', description: `About ${name}`, status: 'active' as const, websiteUrl: null, repositoryUrl: null, category: null, remote: { type: 'streamable-http' as const, url: `https://${name.replace('/', '.')}.example/mcp`, headers: [] }, publishedAt: clock.now(), updatedAt: clock.now() });
  await registry.upsertServers([entry('com.example/weather'), entry('com.example/maps')], clock.now());
  const tools = [{ name: 'forecast', title: null, description: 'the weather', inputSchema: '{"type":"object"}' }];
  await registry.recordProbe(
    'com.example/weather',
    { state: { verdict: 'working', failStreak: 0, toolNames: ['forecast'] }, outcome: { kind: 'working', detail: 'ok', httpStatus: 200, protocolVersion: '2026-07-28', tools, toolCount: 1, auth: null }, checkedAt: clock.now(), nextProbeAt: clock.now() + 3_600_000 },
    [{ kind: 'became-working', names: [], at: clock.now() }, { kind: 'tools-added', names: ['forecast'], at: clock.now() }],
  );
  await registry.recordSync({ at: clock.now(), ok: true, entries: 2 });
  // A space: alice its admin, bob a reader, a writer token and an object written with it.
  expect((await send(b, 'POST', '/spaces', { key: alice, body: { slug: 'crew', name: 'Crew' } })).status).toBe(201);
  expect((await send(b, 'PUT', `/spaces/crew/members/${keyidOf(bob)}`, { key: alice, body: { role: 'reader' } })).status).toBe(200);
  const token = (await send(b, 'POST', '/spaces/crew/tokens', { key: alice, body: { name: 'ci', role: 'writer' } })).body.token as string;
  const spaceObject = (await send(b, 'POST', '/findings', { body: { ...finding('crew only: the deploy key is in the vault'), space: 'crew' }, headers: { authorization: `Bearer ${token}` } })).body.object.id as string;
  return { ids, voted, hotAddress: '198.51.100.1', quarantine: { id: q.body.quarantine_id, object: poisoned, voted: threaded }, space: { object: spaceObject, token } };
}

describe.skipIf(pgDown !== null).each([
  { from: 'sqlite', to: 'postgres' },
  { from: 'postgres', to: 'sqlite' },
] as const)('a backup of a board on $from, restored on $to', ({ from, to }) => {
  it('holds everything acknowledged before it began, though 8 writers published meanwhile', async () => {
    const source = await boardOn(from, `source-${from}`);
    const alice = generateKey().privateJwk;
    const bob = generateKey().privateJwk;
    const mallory = generateKey().privateJwk;
    const { ids, voted, hotAddress, quarantine, space } = await populate(source, alice, bob, mallory);
    const cursor = (await source.services.store.events.bounds()).newest;
    const before = await Promise.all(ids.map(async (id) => [withoutMeta((await send(source, 'GET', `/p/${id}`)).body), withoutMeta((await send(source, 'GET', `/p/${id}/votes`)).body)]));
    const servers = await Promise.all(['weather', 'maps'].map(async (n) => withoutMeta((await send(source, 'GET', `/servers/com.example/${n}`, { headers: { accept: 'application/json' } })).body)));

    // The backup, with 8 writers publishing (signed and anonymous) until it is done.
    const file = join(dir, `${from}.backup`);
    let done = false;
    const during: string[] = [];
    const writer = async (w: number) => {
      for (let n = 0; !done; n++) {
        const r = await send(source, 'POST', '/findings', { body: finding(`written during the backup ${w}-${n}`, ['during']), from: `192.0.2.${w + 1}`, ...(w % 2 ? { key: alice } : {}) });
        if (r.status === 201) during.push(r.body.object.id);
        await new Promise((r) => setImmediate(r));
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    const out = createWriteStream(file);
    const counts = await writeBackup(source.services.store, out, { clock, limits: source.services.config.limits, baseUrl: base });
    await new Promise<void>((resolve) => out.end(resolve));
    done = true;
    await Promise.all(writers);
    expect(during.length).toBeGreaterThan(0);
    expect(counts).toMatchObject({ keys: 3, votes: 5, registry_servers: 2, registry_tools: 1, registry_events: 4, registry_sync: 1, quarantines: 1, moderation_log: 2, spaces: 1, space_members: 2, space_tokens: 1 });

    const empty = await boardOn(to, `target-${to}`);
    await restoreBackup(empty.services.store, file, { now: clock.now(), limits: empty.services.config.limits });
    const target = await restarted(empty);

    // Every object and its votes, as acknowledged before the backup began.
    const after = await Promise.all(ids.map(async (id) => [withoutMeta((await send(target, 'GET', `/p/${id}`)).body), withoutMeta((await send(target, 'GET', `/p/${id}/votes`)).body)]));
    expect(after).toEqual(before);
    for (const [i, n] of ['weather', 'maps'].entries()) expect(withoutMeta((await send(target, 'GET', `/servers/com.example/${n}`, { headers: { accept: 'application/json' } })).body)).toEqual(servers[i]);
    // What was written during the backup is in it or not, each object whole: never half of one.
    const restored = (await target.services.store.backups.snapshot((s) => s.objects(null, 10_000, clock.now()))).map((o) => o.id);
    expect(restored.filter((id) => !ids.includes(id) && !during.includes(id) && id !== space.object)).toEqual([]);
    expect(restored.length).toBe(counts.objects);

    // The quarantine came back with its flags: lifting it gives back the object and the vote.
    expect((await send(target, 'GET', `/p/${quarantine.object}`)).body.object.state).toBe('hidden');
    const lift = await send(target, 'POST', `/admin/quarantine/${quarantine.id}/lift`, { headers: { authorization: 'Bearer admin-token-for-the-backup-test' } });
    expect([lift.status, lift.body.affected]).toEqual([200, 2]);
    expect((await send(target, 'GET', `/p/${quarantine.object}`)).body.object.state).toBe('live');
    expect((await send(target, 'GET', `/p/${quarantine.voted}`)).body.object.verification_count).toBe(1);

    // Keys: alice still signs as herself. The voter key: an anonymous voter is still the same voter.
    const signed = await send(target, 'POST', '/findings', { key: alice, body: finding('alice after the restore') });
    expect(signed.status).toBe(201);
    expect(signed.body.object.author).toMatchObject({ trust_level: 'signed' });
    expect((await send(target, 'POST', `/p/${voted}/verify`, { from: hotAddress })).body.deduplicated).toBe(true);

    // The space: its members and its token (kept as a hash) read it as before; anyone else finds nothing.
    const spaceObject = (await send(source, 'GET', `/p/${space.object}`, { key: bob })).body;
    expect(withoutMeta((await send(target, 'GET', `/p/${space.object}`, { key: bob })).body)).toEqual(withoutMeta(spaceObject));
    expect((await send(target, 'GET', '/findings?space=crew', { headers: { authorization: `Bearer ${space.token}` } })).body.objects.map((o: { id: string }) => o.id)).toEqual([space.object]);
    expect((await send(target, 'GET', `/p/${space.object}`)).status).toBe(404);

    // The event cursor: new events come after it, and a stream from before it is told to list again.
    expect((await target.services.store.events.bounds()).newest).toBeGreaterThan(cursor);
    const res = await target.app.request(`${base}/events`, { headers: { 'last-event-id': '1', 'x-forwarded-for': '203.0.113.50' } });
    const sse = readSse(res);
    try {
      const [first] = await sse.waitFor(1);
      expect(first!.event).toBe('reset');
    } finally {
      await sse.close();
    }
  });
});

describe('restore', () => {
  /** A SQLite board holding one finding, and its backup. */
  async function backedUp(name: string): Promise<{ board: Board$; file: string }> {
    const board = await boardOn('sqlite', `${name}-source`);
    expect((await send(board, 'POST', '/findings', { body: finding(`the one finding of ${name}`) })).status).toBe(201);
    const file = join(dir, `${name}.backup`);
    const out = createWriteStream(file);
    await writeBackup(board.services.store, out, { clock, limits: board.services.config.limits, baseUrl: base });
    await new Promise<void>((resolve) => out.end(resolve));
    return { board, file };
  }

  it('refuses a file cut short, and writes nothing', async () => {
    const { file } = await backedUp('cut');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    writeFileSync(file, `${lines.slice(0, -1).join('\n')}\n`);
    const target = await boardOn('sqlite', 'cut-target');
    await expect(restoreBackup(target.services.store, file, { now: clock.now(), limits: target.services.config.limits })).rejects.toThrow(RestoreError);
    expect(await target.services.store.backups.snapshot((s) => s.objects(null, 10, clock.now()))).toEqual([]);
  });

  it('refuses a database that already holds a board', async () => {
    const { board, file } = await backedUp('full');
    await expect(restoreBackup(board.services.store, file, { now: clock.now(), limits: board.services.config.limits })).rejects.toThrow(/already holds objects/);
  });
});

describe.skipIf(pgDown !== null)('the backup and restore commands', () => {
  it('back up a serving board while it takes writes, and restore the file into an empty database', async () => {
    const db = join(dir, 'served.db');
    const server = await startServer({ DATABASE_URL: `sqlite:${db}`, EMBEDDINGS: 'none', RATE_LIMIT_ANON_WRITES: '0', TRUST_PROXY: 'true' });
    cleanups.push(async () => void server.child.kill('SIGKILL'));
    const publish = (content: string) => fetch(`${server.url}/findings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(finding(content)) });
    const before: string[] = [];
    for (let i = 0; i < 5; i++) before.push((await (await publish(`before the backup ${i}`)).json()).object.id);
    let writing = true;
    const writes = (async () => {
      while (writing) await publish(`during the backup ${Date.now()}`);
    })();
    const file = join(dir, 'served.backup');
    const backup = await runCli(['backup', file], { DATABASE_URL: `sqlite:${db}`, EMBEDDINGS: 'none', LOG_LEVEL: 'warn' });
    writing = false;
    await writes;
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stderr).toMatch(/objects/);

    const pg = await freshSchema();
    cleanups.push(() => pg.drop());
    const restore = await runCli(['restore', file], { DATABASE_URL: pg.url, REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: `restore-${Date.now()}:`, EMBEDDINGS: 'none', LOG_LEVEL: 'warn', REGISTRY_URL: 'off' });
    expect(restore.code, restore.stderr).toBe(0);
    // Once more into the same database: refused, nothing written twice.
    const again = await runCli(['restore', file], { DATABASE_URL: pg.url, REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: `restore-${Date.now()}:`, EMBEDDINGS: 'none', LOG_LEVEL: 'warn', REGISTRY_URL: 'off' });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds objects/);
    const restored = await buildBoard(loadConfig({ DATABASE_URL: pg.url, EMBEDDINGS: 'none', LOG_LEVEL: 'silent', REGISTRY_URL: 'off' }), createLogger('silent'), { clock, kv: new MemoryKv() });
    cleanups.push(() => restored.close());
    for (const id of before) expect((await restored.app.request(`${base}/p/${id}`)).status).toBe(200);
  });
});
