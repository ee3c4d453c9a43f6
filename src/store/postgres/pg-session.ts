/**
 * What the PostgreSQL halves need from a connection: queries, multi-statement scripts,
 * transactions and LISTEN. node-postgres (a pool) implements it here; the tests implement it
 * over PGlite too, so one adapter runs on both and its SQL is tested where pgvector exists.
 */
import pg from 'pg';

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
   * throws. On a session that is already a transaction, `fn` joins it.
   */
  transaction<T>(fn: (tx: PgSession) => Promise<T>): Promise<T>;
}

/** What statements planned once are for: the write batches, or reads (PgRoot.genericPlans). */
export type GenericUse = 'writes' | 'reads';

/** A session that can also listen, and be closed: the store's root connection. */
export interface PgRoot extends PgSession {
  /**
   * Delivers each NOTIFY payload on `channel`. `onLost` is called when the listening
   * connection drops (notifications may have been missed); stop() ends the subscription.
   */
  listen(channel: string, onPayload: (payload: string) => void, onLost: (err: Error) => void): Promise<{ stop(): Promise<void> }>;
  /**
   * A session whose statements are planned once per connection and then run on that plan
   * (plan_cache_mode=force_generic_plan), for statements whose plans do not depend on their
   * values: the write batches (`writes`), which read and write rows by key (planning a publish
   * batch cost 0.44 ms of its 3.1, pg_stat_statements), and reads by key and searches of few
   * matches (`reads`). Each use has connections of its own, so that a burst of searches never
   * queues a write batch behind it.
   */
  genericPlans(use: GenericUse): PgSession;
  /**
   * One connection of its own, planned as genericPlans' are, whose statements are sent as they
   * are asked for, behind those still running (pipelining): the server starts each as soon as
   * the one before it ends, instead of once this process has read that one's answer and sent
   * the next. For statements that each commit on their own (the publish batches); no
   * transaction can span them, hence no transaction().
   */
  pipeline(): PgStatements;
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
 * the first time (measured: 655 → 1,004 publishes/s). Up to PREPARED_MAX distinct texts; past
 * that, a statement is sent whole, so no SQL built from a varying count can grow the
 * server's memory without bound. Every execution is still planned for its own values
 * (plan_cache_mode, set per connection below): a generic plan chosen for one search's words
 * answered another's 15 times slower. Write batches, whose statements go by key, are planned
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
 * crossed it, and compiling took 108 ms for a statement of a millisecond.
 */
export function withPlans(url: string, plans: 'custom' | 'generic'): string {
  const u = new URL(url);
  const settings = plans === 'custom' ? ['-c plan_cache_mode=force_custom_plan', '-c jit=off'] : ['-c plan_cache_mode=force_generic_plan', '-c enable_seqscan=off', '-c jit=off'];
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
  transaction<T>(fn: (tx: PgSession) => Promise<T>): Promise<T> {
    return fn(this);
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
  readonly #queries = new Queries({ query: async (config) => (await this.#connected()).query(config) });

  constructor(private readonly opts: PoolOptions) {}

  query<R>(text: string, params?: readonly unknown[]): Promise<PgResult<R>> {
    return this.#queries.query<R>(text, params);
  }

  #connected(): Promise<pg.Client> {
    // SQLSTATE 08003 (connection_does_not_exist): unavailable, as any connection that is gone (pg-errors.ts).
    if (this.#closed) return Promise.reject(Object.assign(new Error('the pipelined session is closed'), { code: '08003' }));
    if (!this.#client) {
      // pipeline is missing from the ClientConfig typings of @types/pg.
      const client = new pg.Client({ connectionString: withPlans(this.opts.url, 'generic'), connectionTimeoutMillis: this.opts.connectTimeoutMs, types, pipeline: true } as pg.ClientConfig);
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

export interface PoolOptions {
  url: string;
  /** Connections this process opens at most. */
  max: number;
  /** How long a query waits for a free connection before failing. */
  connectTimeoutMs: number;
  /** Connections genericPlans('writes') opens at most, besides `max`. */
  genericMax?: number;
  /** Connections genericPlans('reads') opens at most, besides those. */
  genericReadsMax?: number;
}

/**
 * Each new connection first has its server process allocate and free one block of this size
 * (PostgreSQL's default work_mem). A server process on glibc gives memory back to the system
 * as soon as a freed block or the free top of its heap passes a threshold, and glibc raises
 * the thresholds only once a block past them has been freed: until then, a query that needs
 * some hundreds of kilobytes for a sort or an aggregate maps them afresh at every run, and
 * the kernel zeroes every page again. Measured under searches with every query new: a board's
 * search connections took 35 page faults per search (some took them all, the rest none), and
 * the database's CPU per search was twice what it was with none (1.25 ms against 0.62, every
 * server process counted). Once a block of this size has been freed, a process keeps what its
 * queries free, up to twice this size, for the next (tested: a sort of 1.7 MB took 86 faults
 * at every run before, none after).
 */
const FIRST_FREED_BYTES = 4 * 2 ** 20;

/** Awaited before a connection's first statement; failing, it costs only the gain. */
const freeFirst = async (client: pg.ClientBase) => void (await client.query(`SELECT length(repeat('x', ${FIRST_FREED_BYTES}))`).catch(() => undefined));

const poolOf = (opts: PoolOptions, plans: 'custom' | 'generic', max: number) =>
  new pg.Pool({ connectionString: withPlans(opts.url, plans), max, connectionTimeoutMillis: opts.connectTimeoutMs, types, onConnect: freeFirst });

export class PoolSession extends Queries implements PgRoot {
  readonly #pool: pg.Pool;
  readonly #opts: PoolOptions;

  readonly #generic = new Map<GenericUse, PoolSession>();
  #pipeline: PipelinedConnection | null = null;

  constructor(opts: PoolOptions, plans: 'custom' | 'generic' = 'custom') {
    const pool = poolOf(opts, plans, opts.max);
    super(pool);
    this.#pool = pool;
    this.#opts = opts;
    // An idle connection the server dropped (restart, failover) is discarded by the pool; the
    // next query opens another. Without a listener the error would end the process.
    this.#pool.on('error', () => undefined);
  }

  genericPlans(use: GenericUse): PgSession {
    // Opens nothing until its first query.
    let generic = this.#generic.get(use);
    if (!generic) {
      generic = new PoolSession({ ...this.#opts, max: (use === 'writes' ? this.#opts.genericMax : this.#opts.genericReadsMax) ?? 4 }, 'generic');
      this.#generic.set(use, generic);
    }
    return generic;
  }

  pipeline(): PgStatements {
    // Opens nothing until its first statement.
    return (this.#pipeline ??= new PipelinedConnection(this.#opts));
  }

  async transaction<T>(fn: (tx: PgSession) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(new ClientSession(client));
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

  async close(): Promise<void> {
    await Promise.all([this.#pool.end(), ...[...this.#generic.values()].map((g) => g.close()), this.#pipeline?.close()]);
  }
}
