/**
 * What the PostgreSQL halves need from a connection: queries, multi-statement scripts,
 * transactions and LISTEN. node-postgres (a pool) implements it here; the tests implement it
 * over PGlite too, so one adapter runs on both and its SQL is tested where pgvector exists.
 */
import pg from 'pg';
import { isUnavailable } from './pg-errors.js';

export interface PgResult<R> {
  rows: R[];
  rowCount: number;
}

/** Single statements: each its own transaction, or part of the session's. */
export interface PgStatements {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<PgResult<R>>;
}

export interface PgSession extends PgStatements {
  /** Runs a script of several statements without parameters. */
  exec(script: string): Promise<void>;
  /**
   * Runs `fn` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it
   * throws. `closing`'s statement, when there is one, runs after `fn` and just before COMMIT;
   * where the connection pipelines, the two go out together. On a session that is already a
   * transaction, both join it.
   */
  transaction<T>(fn: (tx: PgSession) => Promise<T>, closing?: Closing): Promise<T>;
}

/** A statement with its values, as query() takes them. */
export interface Statement {
  text: string;
  params: readonly unknown[];
}

/** Asked for once `fn` has resolved: the transaction's last statement, if any, sent just before its COMMIT. */
export type Closing = () => Statement | undefined;

/** How a connection plans each statement: for its values (the board's default), or once (PgRoot.genericPlans). */
export type Plans = 'custom' | 'generic';

/** A session that can also listen, and be closed: the store's root connection. */
export interface PgRoot extends PgSession {
  /**
   * Delivers each NOTIFY payload on `channel`. `onLost` is called when the listening
   * connection drops (notifications may have been missed); stop() ends the subscription.
   */
  listen(channel: string, onPayload: (payload: string) => void, onLost: (err: Error) => void): Promise<{ stop(): Promise<void> }>;
  /**
   * A session for the write batches, whose statements are planned once per connection and then
   * run on that plan (plan_cache_mode=force_generic_plan): they read and write rows by key, and
   * planning had been a large share of each batch's time. Its connections are
   * its own, so that a burst of reads never queues a write batch behind it, and pipelined: a
   * transaction's BEGIN and COMMIT each share a round trip with a statement of its own.
   */
  genericPlans(): PgSession;
  /**
   * One connection of its own, planned as genericPlans' are, whose statements are sent as they
   * are asked for, behind those still running (pipelining): the server starts each as soon as
   * the one before it ends, instead of once this process has read that one's answer and sent
   * the next. For statements that each commit on their own (the publish batches); no
   * transaction can span them, hence no transaction().
   */
  pipeline(): PgStatements;
  /**
   * Connections of their own (PoolOptions.readPipelines at most), each pipelined as pipeline()'s
   * is, for the short statements many requests make at once: searches' and reads by key. Each
   * statement goes to the connection with the fewest in flight. A statement that may run long
   * (a count over every row, upkeep) belongs on the pool: the statements sent behind it on its
   * connection would wait for it.
   */
  pipelines(plans: Plans): PgStatements;
  close(): Promise<void>;
}

/** int8 and numeric as numbers: the board's counts and epoch-ms times fit a double exactly. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 || oid === 1700 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * Statements with parameters are prepared once per connection and then sent by name: a
 * publish's insert costs its text's bytes on the socket and its parse on the server only
 * the first time. Up to PREPARED_MAX distinct texts; past
 * that, a statement is sent whole, so no SQL built from a varying count can grow the
 * server's memory without bound. Every execution is still planned for its own values
 * (plan_cache_mode, set per connection below): a generic plan chosen for one search's words
 * answered another's far slower. Write batches, whose statements go by key, are planned
 * once, on connections of their own (PgRoot.genericPlans).
 */
const PREPARED_MAX = 500;
const preparedNames = new Map<string, string>();

function statementName(text: string): string | undefined {
  let name = preparedNames.get(text);
  if (name === undefined && preparedNames.size < PREPARED_MAX) {
    name = `agentboard_${preparedNames.size}`;
    preparedNames.set(text, name);
  }
  return name;
}

/**
 * The connection string, with every statement planned for its own values (see statementName),
 * or once (PgRoot.genericPlans). Planned once, a statement is planned without its values, and
 * then a full-text match is guessed at a fixed share of the table: a table of short rows was
 * scanned whole instead of through its index. Every statement planned once has an index for
 * what it reads, so scans of whole tables are priced out of those plans (enable_seqscan=off
 * still scans a table where no index serves).
 *
 * Either way without JIT: the board's statements are short (windows, pages, keys), and a plan
 * whose estimate crosses jit_above_cost is compiled at every run. A scan priced out as above
 * crossed it, and compiling took a hundred times the statement's own time.
 */
export function withPlans(url: string, plans: Plans, lockTimeoutMs?: number): string {
  const u = new URL(url);
  const settings = plans === 'custom' ? ['-c plan_cache_mode=force_custom_plan', '-c jit=off'] : ['-c plan_cache_mode=force_generic_plan', '-c enable_seqscan=off', '-c jit=off'];
  // A statement waits this long at most for a lock another transaction holds (a hot row), then fails: 503, never a hang.
  if (lockTimeoutMs !== undefined) settings.push(`-c lock_timeout=${Math.trunc(lockTimeoutMs)}`);
  u.searchParams.set('options', [u.searchParams.get('options'), ...settings].filter(Boolean).join(' '));
  return u.toString();
}

/** query and exec over what node-postgres can query: the pool, or one checked-out client. */
class Queries {
  constructor(private readonly target: { query(config: pg.QueryConfig): Promise<pg.QueryResult> }) {}

  async query<R>(text: string, params?: readonly unknown[]): Promise<PgResult<R>> {
    const values = params as unknown[] | undefined;
    const name = values?.length ? statementName(text) : undefined;
    const r = await this.target.query(name === undefined ? { text, values } : { name, text, values });
    return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
  }

  async exec(script: string): Promise<void> {
    await this.target.query({ text: script });
  }
}

class ClientSession extends Queries implements PgSession {
  async transaction<T>(fn: (tx: PgSession) => Promise<T>, closing?: Closing): Promise<T> {
    const result = await fn(this);
    const last = closing?.();
    if (last) await this.query(last.text, last.params);
    return result;
  }
}

/**
 * PgRoot.pipeline over one node-postgres client in its pipeline mode (each statement sent with
 * its own Sync, so one that fails fails alone). A connection that drops fails what it had in
 * flight; the next statement opens another.
 */
class PipelinedConnection implements PgStatements {
  #client: Promise<pg.Client> | null = null;
  #closed = false;
  readonly #queries = new Queries({
    query: async (config) => {
      const connecting = this.#connected();
      try {
        return await (await connecting).query(config);
      } catch (err) {
        // The connection is gone (dropped, or ended by the server): the next statement opens
        // another, without waiting for the client's own 'end', which may come later.
        if (isUnavailable(err) && this.#client === connecting) this.#client = null;
        throw err;
      }
    },
  });

  constructor(
    private readonly opts: PoolOptions,
    private readonly plans: Plans,
  ) {}

  query<R>(text: string, params?: readonly unknown[]): Promise<PgResult<R>> {
    return this.#queries.query<R>(text, params);
  }

  #connected(): Promise<pg.Client> {
    // SQLSTATE 08003 (connection_does_not_exist): unavailable, as any connection that is gone (pg-errors.ts).
    if (this.#closed) return Promise.reject(Object.assign(new Error('the pipelined session is closed'), { code: '08003' }));
    if (!this.#client) {
      // pipeline is missing from the ClientConfig typings of @types/pg.
      const client = new pg.Client({ connectionString: withPlans(this.opts.url, this.plans, this.opts.lockTimeoutMs), connectionTimeoutMillis: this.opts.connectTimeoutMs, types, pipeline: true } as pg.ClientConfig);
      const connecting = client.connect().then(async () => (await freeFirst(client), client));
      const drop = () => {
        if (this.#client === connecting) this.#client = null;
        void client.end().catch(() => undefined);
      };
      // Without a listener an error on the idle connection would end the process.
      client.on('error', drop);
      client.on('end', drop);
      connecting.catch(drop);
      this.#client = connecting;
    }
    return this.#client;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = await this.#client?.catch(() => null);
    await client?.end().catch(() => undefined);
  }
}

/**
 * PgRoot.pipelines: up to `size` pipelined connections, each opened with its first statement.
 * A statement goes to the one with the fewest in flight (the first of those, so statements
 * asked one at a time keep to one), where the server starts it as soon as those ahead of it
 * end. From a pool, each statement waited for a free connection and then woke that
 * connection's server process, which had gone to sleep; one connection of each kind did better
 * than two (docs/performance.md).
 */
class PipelinedConnections implements PgStatements {
  readonly #connections: { connection: PipelinedConnection; inFlight: number }[];

  constructor(opts: PoolOptions, plans: Plans, size: number) {
    this.#connections = Array.from({ length: Math.max(1, size) }, () => ({ connection: new PipelinedConnection(opts, plans), inFlight: 0 }));
  }

  async query<R>(text: string, params?: readonly unknown[]): Promise<PgResult<R>> {
    let least = this.#connections[0]!;
    for (const c of this.#connections) if (c.inFlight < least.inFlight) least = c;
    least.inFlight++;
    try {
      return await least.connection.query<R>(text, params);
    } finally {
      least.inFlight--;
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.#connections.map((c) => c.connection.close()));
  }
}

export interface PoolOptions {
  url: string;
  /** Connections this process opens at most. */
  max: number;
  /** How long a query waits for a free connection before failing. */
  connectTimeoutMs: number;
  /** Connections genericPlans() opens at most, besides `max`. */
  genericMax?: number;
  /** Connections each kind of pipelines() opens at most, besides those (default 1). */
  readPipelines?: number;
  /** How long a statement waits for a lock before it fails (REQUEST_TIMEOUT_MS); unset: as the server is configured. */
  lockTimeoutMs?: number;
}

/**
 * Each new connection first has its server process allocate and free one block of this size
 * (PostgreSQL's default work_mem). A server process on glibc gives memory back to the system
 * as soon as a freed block or the free top of its heap passes a threshold, and glibc raises
 * the thresholds only once a block past them has been freed: until then, a query that needs
 * some hundreds of kilobytes for a sort or an aggregate maps them afresh at every run, and
 * the kernel zeroes every page again, which doubled the database's CPU per search
 * (docs/performance.md). Once a block of this size has been freed, a process keeps what its
 * queries free, up to twice this size, for the next (tested).
 */
const FIRST_FREED_BYTES = 4 * 2 ** 20;

/** Awaited before a connection's first statement; failing, it costs only the gain. */
const freeFirst = async (client: pg.ClientBase) => void (await client.query(`SELECT length(repeat('x', ${FIRST_FREED_BYTES}))`).catch(() => undefined));

const poolOf = (opts: PoolOptions, plans: Plans, max: number, pipeline: boolean) =>
  // pipeline is missing from the PoolConfig typings of @types/pg.
  new pg.Pool({ connectionString: withPlans(opts.url, plans, opts.lockTimeoutMs), max, connectionTimeoutMillis: opts.connectTimeoutMs, types, onConnect: freeFirst, pipeline } as pg.PoolConfig);

/** A pool's statements, scripts and transactions: genericPlans()'s, and the root's own (PoolSession). */
class PooledSession extends Queries implements PgSession {
  readonly #pool: pg.Pool;
  #closing: Promise<void> | null = null;

  /** `pipelined`: the pool's connections send each statement without waiting for the answer to the one before (see transaction). */
  constructor(
    opts: PoolOptions,
    plans: Plans,
    max: number,
    private readonly pipelined = false,
  ) {
    const pool = poolOf(opts, plans, max, pipelined);
    super(pool);
    this.#pool = pool;
    // An idle connection the server dropped (restart, failover) is discarded by the pool; the
    // next query opens another. Without a listener the error would end the process.
    this.#pool.on('error', () => undefined);
  }

  async transaction<T>(fn: (tx: PgSession) => Promise<T>, closing?: Closing): Promise<T> {
    const client = await this.#pool.connect();
    const tx = new ClientSession(client);
    let broken: Error | undefined;
    try {
      if (this.pipelined) return await pipelinedTransaction(client, tx, fn, closing);
      await client.query('BEGIN');
      // The client's session joins the transaction: fn, then closing's statement.
      const result = await tx.transaction(fn, closing);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw err;
    } finally {
      // A connection that cannot even roll back is destroyed, not reused.
      client.release(broken);
    }
  }

  /** Ends the pool; called again, answers the first call's promise. */
  close(): Promise<void> {
    return (this.#closing ??= this.#pool.end());
  }
}

/** The settled value, or its reason thrown. */
function settled<T>(r: PromiseSettledResult<T>): T {
  if (r.status === 'rejected') throw r.reason;
  return r.value;
}

/**
 * A transaction on a pipelined connection, with two round trips fewer: BEGIN goes out with
 * `fn`'s first statement, and COMMIT right behind `closing`'s. Only a connection that is gone
 * fails a BEGIN, and then nothing sent after it runs either. A statement that fails aborts the
 * transaction, and the server then answers COMMIT with a rollback, which is refused here.
 */
async function pipelinedTransaction<T>(client: pg.PoolClient, tx: PgSession, fn: (tx: PgSession) => Promise<T>, closing?: Closing): Promise<T> {
  // Both settle before anything is decided: fn's statements never outlive the transaction.
  const [begun, done] = await Promise.allSettled([client.query('BEGIN'), fn(tx)]);
  settled(begun);
  const result = settled(done);
  const last = closing?.();
  const [closed, committed] = await Promise.allSettled([last ? tx.query(last.text, last.params) : undefined, client.query('COMMIT')]);
  settled(closed);
  if (settled(committed).command !== 'COMMIT') throw new Error('the transaction was rolled back at COMMIT');
  return result;
}

export class PoolSession extends PooledSession implements PgRoot {
  readonly #opts: PoolOptions;
  #generic: PooledSession | null = null;
  // Made at once, so that close() closes them whenever they are first used; each opens nothing until its first statement.
  readonly #pipeline: PipelinedConnection;
  readonly #pipelines: Record<Plans, PipelinedConnections>;

  constructor(opts: PoolOptions) {
    super(opts, 'custom', opts.max);
    this.#opts = opts;
    this.#pipeline = new PipelinedConnection(opts, 'generic');
    const reads = opts.readPipelines ?? 1;
    this.#pipelines = { custom: new PipelinedConnections(opts, 'custom', reads), generic: new PipelinedConnections(opts, 'generic', reads) };
  }

  genericPlans(): PgSession {
    // Opens nothing until its first query.
    return (this.#generic ??= new PooledSession(this.#opts, 'generic', this.#opts.genericMax ?? 4, true));
  }

  pipeline(): PgStatements {
    return this.#pipeline;
  }

  pipelines(plans: Plans): PgStatements {
    return this.#pipelines[plans];
  }

  async listen(channel: string, onPayload: (payload: string) => void, onLost: (err: Error) => void) {
    const client = new pg.Client({ connectionString: this.#opts.url, connectionTimeoutMillis: this.#opts.connectTimeoutMs, types });
    let stopped = false;
    const lost = (err: Error) => {
      if (stopped) return;
      stopped = true;
      onLost(err);
      void client.end().catch(() => undefined);
    };
    client.on('error', lost);
    client.on('end', () => lost(new Error('the listening connection ended')));
    client.on('notification', (n) => {
      if (n.channel === channel) onPayload(n.payload ?? '');
    });
    await client.connect();
    await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    return {
      async stop() {
        stopped = true;
        await client.end().catch(() => undefined);
      },
    };
  }

  /** Closes every part; each closes once however often it is asked (the pools' end() may not be called twice). */
  override async close(): Promise<void> {
    await Promise.all([super.close(), this.#generic?.close(), this.#pipeline.close(), this.#pipelines.custom.close(), this.#pipelines.generic.close()]);
  }
}
