/**
 * Two board processes on one PostgreSQL database and one Redis, as behind a load balancer:
 * real servers, real sockets, requests alternating between them. The database and Redis are
 * all they share, so these races are closed there or not at all.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanEnv, loggedErrors, ROOT, runCli, startServer } from '../helpers/cli.js';
import { freshSchema, pgUnavailable } from '../helpers/pg.js';
import { readSse } from '../helpers/sse.js';
import { SERVE_NODE_FLAGS } from '../../src/cli/serve-flags.js';

const pgDown = await pgUnavailable();
if (pgDown) console.warn(`skipping the PostgreSQL + Redis instance tests: ${pgDown}`);
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** What compose.yaml runs: each service's command, and the instances' shared settings. */
const COMPOSE = readFileSync(join(ROOT, 'compose.yaml'), 'utf8');
const composeCommand = (service: string): string[] => JSON.parse(new RegExp(`\\n  ${service}:\\n(?:    .*\\n)*?    command: (\\[.*\\])`).exec(COMPOSE)![1]!);
const composeBoardEnv: Record<string, string> = Object.fromEntries(
  [.../x-board:[\s\S]*?environment:\n((?: {4}\w+: .*\n)+)/.exec(COMPOSE)![1]!.matchAll(/^ {4}(\w+): "?([^"\n]*)"?$/gm)].map((m) => [m[1]!, m[2]!]),
);

describe.skipIf(pgDown !== null)('two instances on PostgreSQL + Redis', () => {
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  let env: Record<string, string>;
  const boards: Awaited<ReturnType<typeof startServer>>[] = [];
  // Addresses unique to this run (other runs may share the machine's Redis), apart from the random ones below.
  const net = `172.${16 + (randomBytes(1)[0]! % 16)}.${randomBytes(1)[0]}`;

  beforeAll(async () => {
    schema = await freshSchema();
    // compose.yaml's settings, with this machine's PostgreSQL and Redis for its hosts.
    expect(Object.keys(composeBoardEnv)).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'TRUST_PROXY', 'BASE_URL']));
    env = {
      ...composeBoardEnv,
      DATABASE_URL: schema.url,
      REDIS_URL,
      REDIS_PREFIX: `agentboard-test-${randomBytes(4).toString('hex')}:`,
      EMBEDDINGS: 'none',
      RATE_LIMIT_ANON_WRITES: '10',
      RATE_LIMIT_READS: '0',
      ADMIN_TOKEN: 'instances-admin-token',
    };
    // compose.yaml's commands, as written: `migrate` once, then the instances, which start
    // together and race the migration lock again.
    const [node, ...migrate] = composeCommand('migrate');
    const [node1, ...serve1] = composeCommand('board-1');
    const [node2, ...serve2] = composeCommand('board-2');
    expect([node, node1, node2]).toEqual(['node', 'node', 'node']);
    // The instances start Node as every launcher does (serve-flags.ts).
    for (const serve of [serve1, serve2]) expect(serve.slice(0, SERVE_NODE_FLAGS.length)).toEqual([...SERVE_NODE_FLAGS]);
    await promisify(execFile)(process.execPath, migrate, { cwd: ROOT, env: cleanEnv(env) });
    boards.push(...(await Promise.all([startServer(env, serve1), startServer(env, serve2)])));
  }, 60_000);
  afterAll(async () => {
    for (const b of boards) b.child.kill('SIGKILL');
    await schema?.drop();
  });

  // A fresh address per request unless one is given: no request shares another's rate limit by accident.
  const anyAddress = () => `10.${randomBytes(3).join('.')}`;
  const post = (i: number, path: string, body: unknown, from = anyAddress()) =>
    fetch(`${boards[i % 2]!.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  it('both report healthy, on PostgreSQL, with the semantic leg off (EMBEDDINGS=none)', async () => {
    for (const b of boards) {
      const h = (await (await fetch(`${b.url}/health`)).json()) as any;
      expect(h).toMatchObject({ status: 'ok', d1: 'ok', kv: 'ok', semantic: 'off' });
      expect(b.output()).toMatch(/"database":"postgres"/);
    }
  });

  it('identical publishes to both at once: exactly one 201, the rest deduplicated to it', async () => {
    const body = { content: `Racing identical publishes across instances ${net}`, topics: ['race'] };
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => post(i, '/findings', body)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200 && r.body.deduplicated === true)).toHaveLength(23);
    expect(new Set(results.map((r) => r.body.object.id)).size).toBe(1);
  });

  it('the same quarantine asked of both at once is applied once: one 201, the rest answer that quarantine', async () => {
    const keyid = `racing-key-${randomBytes(6).toString('hex')}`;
    const asks = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        fetch(`${boards[i % 2]!.url}/admin/quarantine`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer instances-admin-token' },
          body: JSON.stringify({ keyid, reason: 'raced' }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as any })),
      ),
    );
    expect(asks.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(asks.map((a) => a.body.quarantine_id)).size).toBe(1);
    const audit = (await (await fetch(`${boards[1]!.url}/admin/audit`, { headers: { authorization: 'Bearer instances-admin-token' } })).json()) as any;
    expect(audit.entries.filter((e: { target: string }) => e.target === `keyid:${keyid}`)).toHaveLength(1);
  });

  it("one voter's votes through both at once count once; many voters' votes all count", async () => {
    const id = (await post(0, '/findings', { content: 'Something to vote on', topics: ['race'] })).body.object.id;
    const voter = `${net}.251`;
    const same = await Promise.all(Array.from({ length: 16 }, (_, i) => post(i, `/p/${id}/verify`, {}, voter)));
    expect(same.filter((r) => r.status === 200)).toHaveLength(10);
    expect(same.filter((r) => r.status === 429)).toHaveLength(6);
    const many = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i, `/p/${id}/verify`, {}, `${net}.${200 + i}`)));
    expect(many.every((r) => r.status === 200)).toBe(true);
    for (const b of boards) {
      const o = ((await (await fetch(`${b.url}/p/${id}`)).json()) as any).object;
      expect(o.verification_count).toBe(21);
    }
  });

  it('one client writing through both shares one rate limit: 10 writes, then 429 from either', async () => {
    const from = `${net}.252`;
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => post(i, '/findings', { content: `limited ${net} ${i}`, topics: ['limits'] }, from)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(20);
    expect(results.find((r) => r.status === 429)!.body).toMatchObject({ status: 429 });
  });

  it('a reply through one is counted and listed by the other', async () => {
    const id = (await post(0, '/findings', { content: 'A thread across instances', topics: ['race'] })).body.object.id;
    const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => post(i, `/p/${id}/replies`, { content: `reply ${i}` })));
    expect(replies.every((r) => r.status === 201)).toBe(true);
    const o = ((await (await fetch(`${boards[1]!.url}/p/${id}`)).json()) as any).object;
    expect(o.reply_count).toBe(6);
  });

  it("a write through one reaches the other's read cache: its cached answer is dropped as the NOTIFY arrives", async () => {
    const id = (await post(0, '/findings', { content: 'Cached on the other instance', topics: ['cache'] })).body.object.id;
    const read = () => fetch(`${boards[1]!.url}/p/${id}`).then(async (r) => ({ etag: r.headers.get('etag'), object: ((await r.json()) as any).object }));
    const first = await read();
    expect((await read()).etag).toBe(first.etag);
    expect((await post(0, `/p/${id}/verify`, {})).status).toBe(200);
    const voted = Date.now();
    await vi.waitFor(async () => expect((await read()).object.verification_count).toBe(1), { timeout: 2000, interval: 5 });
    // A notification's delay on loopback, not a time-to-live.
    expect(Date.now() - voted).toBeLessThan(2000);
    expect((await read()).etag).not.toBe(first.etag);
  });

  it("a publish through one reaches the other's cached search candidates as the NOTIFY arrives", async () => {
    const search = () => fetch(`${boards[1]!.url}/search?q=${encodeURIComponent('pangolin meridian')}&mode=lexical`).then(async (r) => ((await r.json()) as any).results.map((x: any) => x.id));
    const first = (await post(0, '/findings', { content: 'pangolin meridian first', topics: ['cache'] })).body.object.id;
    await vi.waitFor(async () => expect(await search()).toEqual([first]), { timeout: 2000, interval: 5 });
    expect(await search()).toEqual([first]);
    const second = (await post(0, '/findings', { content: 'pangolin meridian second', topics: ['cache'] })).body.object.id;
    const published = Date.now();
    await vi.waitFor(async () => expect((await search()).sort()).toEqual([first, second].sort()), { timeout: 2000, interval: 5 });
    expect(Date.now() - published).toBeLessThan(2000);
  });

  it('export from PostgreSQL imports into SQLite and back into PostgreSQL, every object and state kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentboard-move-'));
    const other = await freshSchema();
    try {
      const fromPg = join(dir, 'from-pg.ndjson');
      const exported = await runCli(['export', fromPg], env);
      expect(exported.code, exported.stderr).toBe(0);
      const lines = readFileSync(fromPg, 'utf8').trim().split('\n');
      expect(lines.length).toBeGreaterThan(10);
      const sqliteEnv = { DATABASE_URL: `sqlite:${join(dir, 'moved.db')}`, EMBEDDINGS: 'none', BASE_URL: env.BASE_URL! };
      expect((await runCli(['import', fromPg], sqliteEnv)).code).toBe(0);
      const fromSqlite = join(dir, 'from-sqlite.ndjson');
      expect((await runCli(['export', fromSqlite], sqliteEnv)).code).toBe(0);
      expect(readFileSync(fromSqlite, 'utf8')).toBe(readFileSync(fromPg, 'utf8'));
      // And into a second PostgreSQL database: the same lines again.
      const pgEnv = { ...env, DATABASE_URL: other.url };
      const imported = await runCli(['import', fromSqlite], pgEnv);
      expect(imported.code, imported.stderr).toBe(0);
      const again = join(dir, 'again.ndjson');
      expect((await runCli(['export', again], pgEnv)).code).toBe(0);
      expect(readFileSync(again, 'utf8')).toBe(readFileSync(fromPg, 'utf8'));
      // A second import of the same file is refused whole, naming the line.
      const twice = await runCli(['import', fromSqlite], pgEnv);
      expect(twice.code).not.toBe(0);
      expect(twice.stderr).toMatch(/line 1: an object with id \w+ already exists/);
    } finally {
      await other.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('an event published through one instance reaches subscribers on both, and a reconnect to the other replays what was missed', async () => {
    const topic = `sse-${net.replace(/\./g, '-')}`;
    const open = async (i: number, headers: Record<string, string> = {}) => {
      const res = await fetch(`${boards[i]!.url}/events?topic=${topic}`, { headers: { 'x-forwarded-for': anyAddress(), ...headers } });
      expect(res.status).toBe(200);
      const r = readSse(res);
      await r.waitForComment((c) => c === 'agentboard events');
      return r;
    };
    const [on0, on1] = await Promise.all([open(0), open(1)]);
    try {
      const first = await post(0, '/findings', { content: `pushed across instances ${net}`, topics: [topic] });
      expect(first.status).toBe(201);
      for (const r of [on0, on1]) expect((await r.waitFor(1))[0]).toMatchObject({ event: 'created', data: { object: { id: first.body.object.id } } });
      const seen = on0.events[0]!.id!;
      expect(on1.events[0]!.id).toBe(seen);
      await on0.close();
      const missed = await post(1, '/findings', { content: `missed while away ${net}`, topics: [topic] });
      await post(0, `/p/${first.body.object.id}/verify`, {});
      const back = await open(1, { 'last-event-id': seen });
      try {
        const events = await back.waitFor(2);
        expect(events.map((e) => [e.event, e.data.object.id])).toEqual([
          ['created', missed.body.object.id],
          ['updated', first.body.object.id],
        ]);
      } finally {
        await back.close();
      }
    } finally {
      await Promise.all([on0.close(), on1.close()]);
    }
  });

  it('kill -9 of one instance during writes loses no acknowledged object, and the other serves on', async () => {
    const [victim, survivor] = boards as [(typeof boards)[0], (typeof boards)[0]];
    const acked: string[] = [];
    const refused: string[] = [];
    let killed = false;
    const writer = async (w: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const r = await fetch(`${victim.url}/findings`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': `${net}.${w}` },
            body: JSON.stringify({ content: `durable ${w}-${i}`, topics: ['kill9'] }),
          });
          if (r.status === 201) acked.push(((await r.json()) as any).object.id);
          else {
            if (r.status !== 429) refused.push(`${r.status} ${await r.text()}`);
            return;
          }
        } catch {
          return; // the connection died with the process
        }
        if (acked.length >= 40 && !killed) {
          killed = true;
          victim.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => writer(100 + w)));
    expect(refused).toEqual([]);
    expect(acked.length).toBeGreaterThanOrEqual(40);
    const missing = [];
    for (const id of acked) if ((await fetch(`${survivor.url}/p/${id}`)).status !== 200) missing.push(id);
    expect(missing).toEqual([]);
    expect((await post(1, '/findings', { content: 'still serving', topics: ['kill9'] })).status).toBe(201);
    expect(loggedErrors(survivor.output())).toEqual([]);
  }, 60_000);
});

describe.skipIf(pgDown !== null)('PostgreSQL without Redis', () => {
  it('refuses to start, saying why', async () => {
    const schema = await freshSchema();
    try {
      const r = await runCli(['serve'], { DATABASE_URL: schema.url, EMBEDDINGS: 'none', PORT: '0' });
      expect(r.code).not.toBe(0);
      expect(r.stderr + r.stdout).toMatch(/REDIS_URL: is required when DATABASE_URL is PostgreSQL/);
    } finally {
      await schema.drop();
    }
  });
});
