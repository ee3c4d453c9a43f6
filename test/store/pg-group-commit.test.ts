/**
 * PostgreSQL's group commit on the machine's server: concurrent transactions share a commit,
 * yet each is answered as if it ran alone, after COMMIT, with its own result or error.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewEvent } from '../../src/domain/events.js';
import { laneOf, PgGroupCommit } from '../../src/store/postgres/pg-group-commit.js';
import { PoolSession, type PgSession } from '../../src/store/postgres/pg-session.js';
import { PgStore } from '../../src/store/postgres/pg-store.js';
import { freshSchema, pgUnavailable } from '../helpers/pg.js';

const unavailable = await pgUnavailable();
if (unavailable) console.warn(`skipping the PostgreSQL group commit suite: ${unavailable}`);

const event = (objectId: string): NewEvent => ({ kind: 'created', objectId, type: 'finding', topics: ['x'], threadId: objectId, at: 1 });

/** The batches' sessions: the pool's, and the pipelined one the store gives them (BEGIN and COMMIT each sent with a statement). */
const sessions: [string, (db: PoolSession) => PgSession][] = [
  ['pooled connections', (db) => db],
  ['pipelined connections', (db) => db.genericPlans()],
];

describe.skipIf(unavailable !== null).each(sessions)('PgGroupCommit on PostgreSQL, over %s', (_, sessionOf) => {
  let db: PoolSession;
  let drop: () => Promise<void>;
  /** Transactions begun, and how many jobs each ran. */
  let transactions: number;
  let counting: PgSession;

  beforeEach(async () => {
    const schema = await freshSchema();
    drop = schema.drop;
    const store = new PgStore(new PoolSession({ url: schema.url, max: 2, connectTimeoutMs: 5000 }));
    await store.migrate();
    await store.close();
    db = new PoolSession({ url: schema.url, max: 4, connectTimeoutMs: 5000 });
    await db.exec('CREATE TABLE marks (k text PRIMARY KEY); CREATE TABLE deferred (k int UNIQUE DEFERRABLE INITIALLY DEFERRED)');
    transactions = 0;
    const session = sessionOf(db);
    counting = {
      query: (text, params) => session.query(text, params),
      exec: (script) => session.exec(script),
      transaction: (fn, closing) => {
        transactions++;
        return session.transaction(fn, closing);
      },
    };
  });
  afterEach(async () => {
    await db.close();
    await drop();
  });

  const mark = (tx: PgSession, k: string) => tx.query('INSERT INTO marks (k) VALUES ($1)', [k]);
  /** A publish in small: a row and its event. */
  const record = async (tx: PgSession, events: NewEvent[], k: string) => {
    await mark(tx, k);
    events.push(event(k));
  };
  const marks = async () => (await db.query<{ k: string }>('SELECT k FROM marks ORDER BY k')).rows.map((r) => r.k);
  const logged = async () => (await db.query<{ object_id: string }>('SELECT object_id FROM events ORDER BY seq')).rows.map((r) => r.object_id);
  const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${String(i).padStart(2, '0')}`);

  it('runs concurrent transactions in shared commits, each answered with its own result, events in order', async () => {
    const commits = new PgGroupCommit(counting, { maxBatch: 8, inFlight: 1 });
    const results = await Promise.all(
      keys(20).map((k) =>
        commits.run('scope', async (tx, events) => {
          await record(tx, events, k);
          return `done ${k}`;
        }),
      ),
    );
    expect(results).toEqual(keys(20).map((k) => `done ${k}`));
    expect(await marks()).toEqual(keys(20));
    expect(await logged()).toEqual(keys(20));
    // Twenty transactions, eight at most to a commit: three commits at least, far fewer than twenty.
    expect(transactions).toBeGreaterThanOrEqual(3);
    expect(transactions).toBeLessThan(20);
  });

  it('refuses a job that throws with its own error, and commits the others without its writes or events', async () => {
    const commits = new PgGroupCommit(counting, { maxBatch: 32, inFlight: 1 });
    const outcomes = await Promise.allSettled(
      keys(10).map((k) =>
        commits.run('scope', async (tx, events) => {
          await record(tx, events, k);
          if (k === 'k04') throw new Error('k04 changed its mind');
          return k;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(keys(10).map((k) => (k === 'k04' ? 'rejected' : 'fulfilled')));
    expect((outcomes[4] as PromiseRejectedResult).reason).toEqual(new Error('k04 changed its mind'));
    const kept = keys(10).filter((k) => k !== 'k04');
    expect(await marks()).toEqual(kept);
    expect(await logged()).toEqual(kept);
  });

  it('runs a job that lost a deadlock again, and refuses one that keeps losing after five attempts', async () => {
    const commits = new PgGroupCommit(counting, { maxBatch: 32, inFlight: 1 });
    const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });
    let once = 0;
    let always = 0;
    const [unlucky, hopeless, bystander] = await Promise.allSettled([
      commits.run('scope', async (tx) => {
        await mark(tx, 'unlucky');
        if (once++ === 0) throw deadlock();
        return 'unlucky';
      }),
      commits.run('scope', async () => {
        always++;
        throw deadlock();
      }),
      commits.run('scope', async (tx) => {
        await mark(tx, 'bystander');
        return 'bystander';
      }),
    ]);
    expect(unlucky).toEqual({ status: 'fulfilled', value: 'unlucky' });
    expect(hopeless).toMatchObject({ status: 'rejected', reason: { code: '40P01' } });
    expect(always).toBe(5);
    expect(bystander).toEqual({ status: 'fulfilled', value: 'bystander' });
    expect(await marks()).toEqual(['bystander', 'unlucky']);
  });

  it('refuses every job of a batch whose COMMIT fails, and nothing of it lands', async () => {
    const commits = new PgGroupCommit(counting, { maxBatch: 32, inFlight: 1 });
    // The deferred unique constraint is checked at COMMIT: the two jobs pass alone, not together.
    const job = (k: string) =>
      commits.run('scope', async (tx, events) => {
        await tx.query('INSERT INTO deferred (k) VALUES (1)');
        await record(tx, events, k);
        return k;
      });
    const outcomes = await Promise.allSettled([job('a'), job('b')]);
    expect(outcomes).toMatchObject([
      { status: 'rejected', reason: { code: '23505' } },
      { status: 'rejected', reason: { code: '23505' } },
    ]);
    expect(transactions).toBe(1);
    expect(await marks()).toEqual([]);
    expect(await logged()).toEqual([]);
    // The connection went back to the pool clean: the next batch commits.
    expect(await commits.run('scope', async (tx) => mark(tx, 'after').then(() => 'ok'))).toBe('ok');
  });

  it('refuses every job of a batch whose events fail to append, and nothing of it lands', async () => {
    const commits = new PgGroupCommit(counting, { maxBatch: 32, inFlight: 1 });
    // The events go out last, with COMMIT: an event the log refuses (a time that is no number) turns COMMIT into a rollback.
    const job = (k: string, at: unknown) =>
      commits.run('scope', async (tx, events) => {
        await mark(tx, k);
        events.push({ ...event(k), at: at as number });
        return k;
      });
    const outcomes = await Promise.allSettled([job('a', 1), job('b', 'not a time')]);
    expect(outcomes).toMatchObject([
      { status: 'rejected', reason: { code: '22P02' } },
      { status: 'rejected', reason: { code: '22P02' } },
    ]);
    expect(await marks()).toEqual([]);
    expect(await logged()).toEqual([]);
    // The connection went back to the pool clean: the next batch commits, with its event.
    expect(await job('after', 2)).toBe('after');
    expect(await marks()).toEqual(['after']);
    expect(await logged()).toEqual(['after']);
  });

  it('runs the scopes of different lanes at once, and one scope in order, one batch at a time', async () => {
    const commits = new PgGroupCommit(counting, { maxBatch: 8, inFlight: 2 });
    expect(laneOf('a', 2)).not.toBe(laneOf('b', 2));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const slow = commits.run('a', async (tx) => {
      await mark(tx, 'a1');
      await held;
      order.push('a1');
    });
    // Same scope: behind the held batch. Another lane's scope: committed while it is held.
    const same = commits.run('a', async (tx) => {
      await mark(tx, 'a2');
      order.push('a2');
    });
    await commits.run('b', async (tx) => {
      await mark(tx, 'b1');
      order.push('b1');
    });
    expect(order).toEqual(['b1']);
    release();
    await Promise.all([slow, same]);
    expect(order).toEqual(['b1', 'a1', 'a2']);
    expect(await marks()).toEqual(['a1', 'a2', 'b1']);
  });

  it('keeps a scope in one lane: batches that lock rows of one scope in any order never deadlock each other', async () => {
    const commits = new PgGroupCommit(counting, { maxBatch: 4, inFlight: 4 });
    await db.exec("CREATE TABLE counters (k text PRIMARY KEY, n int NOT NULL); INSERT INTO counters VALUES ('x1', 0), ('x2', 0), ('y1', 0), ('y2', 0)");
    let deadlocks = 0;
    const bump = (tx: PgSession, k: string) =>
      tx.query('UPDATE counters SET n = n + 1 WHERE k = $1', [k]).catch((err: { code?: string }) => {
        if (err.code === '40P01') deadlocks++;
        throw err;
      });
    // Each job locks its scope's two rows, half in one order and half in the other.
    const jobs = Array.from({ length: 80 }, (_, i) => {
      const scope = i % 2 ? 'x' : 'y';
      const [first, second] = i % 4 < 2 ? ['1', '2'] : ['2', '1'];
      return commits.run(scope, async (tx) => {
        await bump(tx, scope + first);
        // Holds the first lock a moment, as a vote's later statements do.
        await tx.query('SELECT pg_sleep(0.002)');
        await bump(tx, scope + second);
      });
    });
    const outcomes = await Promise.allSettled(jobs);
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    expect(deadlocks).toBe(0);
    const rows = (await db.query<{ k: string; n: number }>('SELECT k, n FROM counters ORDER BY k')).rows;
    expect(rows).toEqual(['x1', 'x2', 'y1', 'y2'].map((k) => ({ k, n: 40 })));
  });

  it("plans a batch's statements once per connection, on connections of their own, and every other statement per execution", async () => {
    const mode = async (s: PgSession) => (await s.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]!.plan_cache_mode;
    const generic = db.genericPlans();
    const commits = new PgGroupCommit(generic, { maxBatch: 8, inFlight: 1 });
    expect(await commits.run('scope', (tx) => mode(tx))).toBe('force_generic_plan');
    expect(await mode(generic)).toBe('force_generic_plan');
    for (let i = 0; i < 4; i++) expect(await mode(db)).toBe('force_custom_plan');
    expect(await db.transaction((tx) => mode(tx))).toBe('force_custom_plan');
  });
});
