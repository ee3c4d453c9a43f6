/**
 * PgRoot.pipeline and PgRoot.pipelines on the machine's server, through a loopback proxy that
 * records what crosses the wire: a statement goes out before the one ahead of it is answered,
 * each caller gets its own answer, one that fails fails alone, and a dropped connection fails
 * what it had in flight while the next statement opens another; pipelines() sends each
 * statement to its connection with the fewest in flight, planned as its kind says.
 */
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isUnavailable } from '../../src/store/postgres/pg-errors.js';
import { PoolSession, type PgStatements } from '../../src/store/postgres/pg-session.js';
import { PG_URL, pgUnavailable } from '../helpers/pg.js';

const unavailable = await pgUnavailable();
if (unavailable) console.warn(`skipping the PostgreSQL pipeline suite: ${unavailable}`);

/** Forwards to the server, keeping every byte the client sent, in order. */
async function recordingProxy(): Promise<{ port: number; sent: () => string; close: () => Promise<void> }> {
  const target = new URL(PG_URL);
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => (client.destroy(), upstream.destroy()));
    }
    client.on('data', (d: Buffer) => (chunks.push(d), upstream.write(d)));
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    sent: () => Buffer.concat(chunks).toString('latin1'),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Resolves once `check` holds, polling; rejects after `ms`. */
async function until(check: () => boolean, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; !check(); ) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.skipIf(unavailable !== null)('PgRoot.pipeline on PostgreSQL', () => {
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let root: PoolSession;
  let pipeline: PgStatements;
  let admin: pg.Client;
  let closed: boolean;

  beforeEach(async () => {
    closed = false;
    proxy = await recordingProxy();
    const url = new URL(PG_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    root = new PoolSession({ url: url.toString(), max: 2, connectTimeoutMs: 5000 });
    pipeline = root.pipeline();
    admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
  });
  afterEach(async () => {
    if (!closed) await root.close();
    await admin.end();
    await proxy.close();
  });

  it('sends a statement while the one ahead of it is still running, and answers both', async () => {
    await pipeline.query('SELECT $1::int AS warm', [1]);
    // The first statement waits on a lock the test holds, so it cannot be answered before the second is sent.
    await admin.query('SELECT pg_advisory_lock(7001)');
    let firstAnswered = false;
    const first = pipeline.query<{ first: string }>('SELECT pg_advisory_xact_lock($1::bigint)::text AS first', [7001]).finally(() => (firstAnswered = true));
    const second = pipeline.query<{ second: string }>('SELECT $1::text AS second', ['behind']);
    await until(() => proxy.sent().includes('AS second'));
    expect(firstAnswered).toBe(false);
    await admin.query('SELECT pg_advisory_unlock(7001)');
    expect((await first).rows).toEqual([{ first: '' }]);
    expect((await second).rows).toEqual([{ second: 'behind' }]);
  });

  it('answers each of many statements sent at once with its own rows', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => pipeline.query<{ n: number }>('SELECT $1::int AS n', [i])));
    expect(answers.map((a) => a.rows)).toEqual(Array.from({ length: 50 }, (_, i) => [{ n: i }]));
  });

  it('fails a statement alone: those sent behind it run', async () => {
    const [bad, good] = await Promise.allSettled([pipeline.query('SELECT 1 / $1::int AS q', [0]), pipeline.query<{ n: number }>('SELECT $1::int AS n', [5])]);
    expect(bad).toMatchObject({ status: 'rejected', reason: { code: '22012' } });
    expect(good).toMatchObject({ status: 'fulfilled', value: { rows: [{ n: 5 }] } });
  });

  it('fails what a dropped connection had in flight as unavailable, then opens another', async () => {
    const pid = async () => (await pipeline.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, $1::int AS n', [1])).rows[0]!.pid;
    const before = await pid();
    await admin.query('SELECT pg_advisory_lock(7002)');
    const inFlight = [pipeline.query('SELECT pg_advisory_xact_lock($1::bigint)', [7002]), pipeline.query('SELECT $1::int AS n', [2])];
    await until(() => proxy.sent().split('pg_advisory_xact_lock').length > 1);
    await admin.query('SELECT pg_terminate_backend($1)', [before]);
    const outcomes = await Promise.allSettled(inFlight);
    expect(outcomes.map((o) => o.status === 'rejected' && isUnavailable(o.reason))).toEqual([true, true]);
    await admin.query('SELECT pg_advisory_unlock(7002)');
    expect(await pid()).not.toBe(before);
  });

  it('refuses statements once closed, without opening a connection', async () => {
    await root.close();
    closed = true;
    const sentBefore = proxy.sent().length;
    await expect(pipeline.query('SELECT $1::int AS n', [1])).rejects.toSatisfy(isUnavailable);
    expect(proxy.sent().length).toBe(sentBefore);
  });
});

describe.skipIf(unavailable !== null)('PgRoot.pipelines on PostgreSQL', () => {
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let admin: pg.Client;
  const sessions: PoolSession[] = [];
  /** A root through the proxy with `readPipelines` pipelined connections of each kind. */
  const rootWith = (readPipelines: number) => {
    const url = new URL(PG_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    const root = new PoolSession({ url: url.toString(), max: 2, connectTimeoutMs: 5000, readPipelines });
    sessions.push(root);
    return root;
  };
  const pidOf = async (s: PgStatements) => (await s.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, $1::int AS n', [1])).rows[0]!.pid;

  beforeEach(async () => {
    proxy = await recordingProxy();
    admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
  });
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
    await admin.end();
    await proxy.close();
  });

  it('sends a statement to the connection with the fewest in flight: past one held up, on another', async () => {
    const reads = rootWith(2).pipelines('custom');
    await admin.query('SELECT pg_advisory_lock(7101)');
    let firstAnswered = false;
    const first = reads.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_advisory_xact_lock($1::bigint)::text AS held', [7101]).finally(() => (firstAnswered = true));
    // Answered while the first still waits: it went to the other connection.
    const second = await pidOf(reads);
    expect(firstAnswered).toBe(false);
    await admin.query('SELECT pg_advisory_unlock(7101)');
    expect((await first).rows[0]!.pid).not.toBe(second);
  });

  it('keeps statements asked one at a time to one connection', async () => {
    const reads = rootWith(3).pipelines('generic');
    const pids = new Set<number>();
    for (let i = 0; i < 5; i++) pids.add(await pidOf(reads));
    expect(pids.size).toBe(1);
  });

  it('with one connection, sends a statement behind one still running there, and answers both', async () => {
    const reads = rootWith(1).pipelines('custom');
    const pid = await pidOf(reads);
    await admin.query('SELECT pg_advisory_lock(7102)');
    let firstAnswered = false;
    const first = reads.query('SELECT pg_advisory_xact_lock($1::bigint)', [7102]).finally(() => (firstAnswered = true));
    const second = reads.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, $1::text AS second', ['behind']);
    await until(() => proxy.sent().includes('AS second'));
    expect(firstAnswered).toBe(false);
    await admin.query('SELECT pg_advisory_unlock(7102)');
    await first;
    expect((await second).rows[0]!.pid).toBe(pid);
  });

  it('plans as its kind says: for the values, or once', async () => {
    const root = rootWith(1);
    const mode = async (s: PgStatements) => (await s.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]!.plan_cache_mode;
    expect(await mode(root.pipelines('custom'))).toBe('force_custom_plan');
    expect(await mode(root.pipelines('generic'))).toBe('force_generic_plan');
  });

  it('fails what a dropped connection had in flight as unavailable, then opens another', async () => {
    const reads = rootWith(1).pipelines('custom');
    const before = await pidOf(reads);
    await admin.query('SELECT pg_advisory_lock(7103)');
    const inFlight = reads.query('SELECT pg_advisory_xact_lock($1::bigint)', [7103]);
    await until(() => proxy.sent().includes('7103') || proxy.sent().split('pg_advisory_xact_lock').length > 1);
    await admin.query('SELECT pg_terminate_backend($1)', [before]);
    await expect(inFlight).rejects.toSatisfy(isUnavailable);
    await admin.query('SELECT pg_advisory_unlock(7103)');
    expect(await pidOf(reads)).not.toBe(before);
  });

  it('refuses statements once closed, without opening a connection', async () => {
    const root = rootWith(2);
    await root.close();
    const sentBefore = proxy.sent().length;
    await expect(root.pipelines('generic').query('SELECT $1::int AS n', [1])).rejects.toSatisfy(isUnavailable);
    expect(proxy.sent().length).toBe(sentBefore);
  });
});
