/**
 * Publishes on the machine's PostgreSQL server: those asked for together share one statement,
 * and stores publishing the same keys at once neither deadlock nor insert a key twice.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewObject } from '../../src/ports/object-store.js';
import { PoolSession, type PgRoot, type PgSession } from '../../src/store/postgres/pg-session.js';
import { PgStore } from '../../src/store/postgres/pg-store.js';
import { freshSchema, pgUnavailable } from '../helpers/pg.js';
import { publishObject } from '../helpers/publish.js';

const unavailable = await pgUnavailable();
if (unavailable) console.warn(`skipping the PostgreSQL publishes suite: ${unavailable}`);

const live = { now: Date.now(), disputeMinContradictions: 2 };
let n = 0;
const row = (dedupeKey: string, patch: Partial<NewObject> = {}): NewObject => {
  const id = `01J${String(++n).padStart(23, '0')}`;
  return { id, type: 'finding', title: id, content: `content ${id}`, topics: ['x'], sourceUrl: null, parentId: null, author: null, createdAt: live.now, expiresAt: live.now + 60_000, injectionSuspected: false, dedupeKey, ...patch };
};

describe.skipIf(unavailable !== null)('publishes on PostgreSQL', () => {
  let url: string;
  let drop: () => Promise<void>;
  const opened: PgStore[] = [];
  /** A store whose statements, and transactions (as BEGIN), are counted in `texts`. */
  const open = (texts: string[] = []) => {
    const pool = new PoolSession({ url, max: 4, connectTimeoutMs: 5000 });
    const generic = pool.genericPlans();
    const pipeline = pool.pipeline();
    // What runs on the write batches' connections is marked `generic:`.
    const batches: PgSession = {
      query: (text, params) => (texts.push(`generic: ${text}`), generic.query(text, params)),
      exec: (script) => (texts.push(`generic: ${script}`), generic.exec(script)),
      transaction: (fn) => (texts.push('generic: BEGIN'), generic.transaction(fn)),
    };
    const session: PgRoot = {
      query: (text, params) => (texts.push(text), pool.query(text, params)),
      exec: (script) => (texts.push(script), pool.exec(script)),
      transaction: (fn) => (texts.push('BEGIN'), pool.transaction(fn)),
      listen: (channel, onPayload, onLost) => pool.listen(channel, onPayload, onLost),
      genericPlans: () => batches,
      // What runs on the pipelined connection is marked `pipeline:`.
      pipeline: () => ({ query: (text, params) => (texts.push(`pipeline: ${text}`), pipeline.query(text, params)) }),
      pipelines: (plans) => pool.pipelines(plans),
      close: () => pool.close(),
    };
    const store = new PgStore(session);
    opened.push(store);
    return store;
  };

  beforeEach(async () => {
    ({ url, drop } = await freshSchema());
    await open().migrate();
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    await drop();
  });

  it('runs the publishes asked for together as one statement, each answered with its own object', async () => {
    const texts: string[] = [];
    const store = open(texts);
    await store.migrate();
    texts.length = 0;
    const rows = Array.from({ length: 20 }, (_, i) => row(`k${i}`));
    const results = await Promise.all(rows.map((r) => publishObject(store, r, live)));
    expect(results.map((r) => [r.created, r.object.id])).toEqual(rows.map((r) => [true, r.id]));
    // On the pipelined connection (which plans it once), and in no transaction of its own.
    expect(texts.filter((t) => t.includes('INSERT INTO objects')).map((t) => t.startsWith('pipeline: '))).toEqual([true]);
    expect(texts.filter((t) => /^((generic|pipeline): )?\s*(BEGIN|COMMIT)/.test(t))).toEqual([]);
  });

  it('dedupes a publish sent behind the statement that inserts its key, on the pipelined connection', async () => {
    const texts: string[] = [];
    const store = open(texts);
    await store.migrate();
    texts.length = 0;
    const first = publishObject(store, row('same'), live);
    // A later turn of the event loop: the second goes in a statement of its own, sent while the first's runs.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const second = publishObject(store, row('same'), live);
    const [a, b] = await Promise.all([first, second]);
    expect(texts.filter((t) => t.startsWith('pipeline: ') && t.includes('INSERT INTO objects'))).toHaveLength(2);
    expect([a.created, b.created, b.object.id]).toEqual([true, false, a.object.id]);
  });

  it('answers a text the server cannot store with a validation error, and lands the publishes batched with it', async () => {
    const store = open();
    const ok = [row('a'), row('b')];
    const [a, bad, b] = await Promise.allSettled([publishObject(store, ok[0]!, live), publishObject(store, row('nul', { content: 'a\u0000b' }), live), publishObject(store, ok[1]!, live)]);
    expect(bad).toMatchObject({ status: 'rejected', reason: { code: 'validation-error' } });
    expect([a, b].map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    expect((await store.events.after(0, 10)).map((e) => e.objectId)).toEqual(ok.map((r) => r.id));
  });

  it('goes on publishing after the server drops its publishing connection: meanwhile a publish is unavailable, never lost or an internal error', async () => {
    const named = new URL(url);
    named.searchParams.set('application_name', `ab_pipe_${process.pid}_${++n}`);
    const store = new PgStore(new PoolSession({ url: named.toString(), max: 2, connectTimeoutMs: 5000 }));
    opened.push(store);
    expect((await publishObject(store, row('before-drop'), live)).created).toBe(true);
    const admin = new PoolSession({ url, max: 1, connectTimeoutMs: 5000 });
    try {
      const dropped = await admin.query<{ pid: number }>(
        "SELECT pg_terminate_backend(pid) AS done, pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE '%jsonb_to_recordset%'",
        [named.searchParams.get('application_name')],
      );
      expect(dropped.rows).toHaveLength(1);
    } finally {
      await admin.close();
    }
    // Until this process hears of the drop, a publish may go down with the connection.
    const refused: unknown[] = [];
    let landed: { created: boolean } | undefined;
    for (let attempt = 0; attempt < 20 && !landed; attempt++) {
      landed = await publishObject(store, row('after-drop'), live).catch((err: unknown) => void refused.push(err));
      if (!landed) await new Promise((r) => setTimeout(r, 50));
    }
    expect(landed?.created).toBe(true);
    expect(refused.map((e) => (e as { code?: string }).code)).toEqual(refused.map(() => 'unavailable'));
    expect((await store.events.after(0, 10)).length).toBe(2);
  });

  it('lets two stores publish the same keys at once, in opposite orders: no deadlock, each key once', async () => {
    const [one, two] = [open(), open()];
    const keys = Array.from({ length: 40 }, (_, i) => `race-${i}`);
    for (let round = 0; round < 3; round++) {
      const [ra, rb] = await Promise.all([
        Promise.all(keys.map((k) => publishObject(one, row(`${k}-${round}`), live))),
        Promise.all([...keys].reverse().map((k) => publishObject(two, row(`${k}-${round}`), live))),
      ]);
      const created = [...ra, ...rb].filter((r) => r.created);
      expect(created).toHaveLength(keys.length);
      // Both answer each key with the one object stored under it.
      expect(ra.map((r) => r.object.id)).toEqual([...rb].reverse().map((r) => r.object.id));
    }
    const events = await one.events.after(0, 1000);
    expect(events).toHaveLength(keys.length * 3);
    expect(new Set(events.map((e) => e.objectId)).size).toBe(keys.length * 3);
  });
});

it('fails a batch of publishes at once, each with unavailable, when the database is out of reach', async () => {
  // Nothing listens on port 1: every connection is refused.
  const pool = new PoolSession({ url: 'postgres://postgres@127.0.0.1:1/test', max: 2, connectTimeoutMs: 2000 });
  let statements = 0;
  const pipeline = pool.pipeline();
  const root: PgRoot = {
    query: (text, params) => pool.query(text, params),
    exec: (script) => pool.exec(script),
    transaction: (fn) => pool.transaction(fn),
    listen: (channel, onPayload, onLost) => pool.listen(channel, onPayload, onLost),
    genericPlans: () => pool.genericPlans(),
    pipeline: () => ({ query: (text, params) => (statements++, pipeline.query(text, params)) }),
    pipelines: (plans) => pool.pipelines(plans),
    close: () => pool.close(),
  };
  const store = new PgStore(root);
  try {
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => publishObject(store, row(`down-${i}`), live)));
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code?: string }).code : o.status))).toEqual(Array(5).fill('unavailable'));
    // One statement for the batch, not one more per publish.
    expect(statements).toBe(1);
  } finally {
    await store.close();
  }
});
