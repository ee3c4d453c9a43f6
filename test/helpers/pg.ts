/**
 * PostgreSQL for the tests: the machine's server (a fresh schema per store, dropped after), and
 * PGlite in process (which ships pgvector, absent from the machine's PostgreSQL 15).
 */
import { randomBytes } from 'node:crypto';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import pg from 'pg';
import type { Closing, PgResult, PgRoot, PgSession } from '../../src/store/postgres/pg-session.js';
import { PoolSession } from '../../src/store/postgres/pg-session.js';
import { PgStore, type PgStoreOptions } from '../../src/store/postgres/pg-store.js';

/** The machine's PostgreSQL (CI's too); TEST_DATABASE_URL points elsewhere. */
export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Why the machine's PostgreSQL cannot be used, or null when it answers. */
export async function pgUnavailable(): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return `PostgreSQL at ${PG_URL} does not answer: ${(err as Error).message}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A new empty schema on the machine's server, and the URL whose connections use it. */
export async function freshSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `ab_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}

/** A store on a fresh schema of the machine's server. */
export async function realPgStore(opts: PgStoreOptions = {}): Promise<{ store: PgStore; url: string; dispose: () => Promise<void> }> {
  const { url, drop } = await freshSchema();
  const store = new PgStore(new PoolSession({ url, max: 10, connectTimeoutMs: 5000 }), opts);
  return {
    store,
    url,
    async dispose() {
      await store.close();
      await drop();
    },
  };
}

/** realPgStore, with a one-connection session of its own on the schema to read what the store wrote; dispose closes both. */
export async function realPgStoreWithSession(): Promise<{ store: PgStore; session: PoolSession; dispose: () => Promise<void> }> {
  const { store, url, dispose } = await realPgStore();
  const session = new PoolSession({ url, max: 1, connectTimeoutMs: 5000 });
  return {
    store,
    session,
    async dispose() {
      await session.close();
      await dispose();
    },
  };
}

/** query and exec over PGlite or one of its transactions. */
class PgliteQueries implements PgSession {
  constructor(private readonly target: PGlite | Transaction) {}
  async query<R>(text: string, params?: readonly unknown[]): Promise<PgResult<R>> {
    const r = await this.target.query<R>(text, params as unknown[]);
    return { rows: r.rows, rowCount: r.affectedRows ?? 0 };
  }
  async exec(script: string): Promise<void> {
    await this.target.exec(script);
  }
  async transaction<T>(fn: (tx: PgSession) => Promise<T>, closing?: Closing): Promise<T> {
    const result = await fn(this);
    const last = closing?.();
    if (last) await this.query(last.text, last.params);
    return result;
  }
}

/** The PgRoot port over one PGlite database (one connection: PGlite runs one query at a time). */
export class PgliteSession extends PgliteQueries implements PgRoot {
  constructor(
    readonly db: PGlite,
    /** False when the database outlives this session (shared by a suite). */
    private readonly owned = true,
  ) {
    super(db);
  }
  static async create(): Promise<PgliteSession> {
    return new PgliteSession(await PGlite.create({ extensions: { vector } }));
  }
  override transaction<T>(fn: (tx: PgSession) => Promise<T>, closing?: Closing): Promise<T> {
    return this.db.transaction((tx) => new PgliteQueries(tx).transaction(fn, closing));
  }
  /** PGlite is one connection: the write batches run on it, planned as PGlite plans them. */
  genericPlans(): PgSession {
    return this;
  }
  /** One connection: statements already run one behind another. */
  pipeline(): PgSession {
    return this;
  }
  /** One connection, as pipeline()'s. */
  pipelines(): PgSession {
    return this;
  }
  async listen(channel: string, onPayload: (payload: string) => void) {
    const unsubscribe = await this.db.listen(channel, onPayload);
    return { stop: () => unsubscribe() };
  }
  async close(): Promise<void> {
    if (this.owned && !this.db.closed) await this.db.close();
  }
}

/**
 * Stores on one PGlite database shared by a suite (starting PGlite takes a second or two), each
 * in a schema of its own that is dropped after.
 */
export function pgliteStores(opts: PgStoreOptions = {}): () => Promise<{ store: PgStore; dispose: () => Promise<void> }> {
  let db: Promise<PGlite> | null = null;
  let n = 0;
  return async () => {
    db ??= PGlite.create({ extensions: { vector } });
    const shared = await db;
    const schema = `ab_${++n}`;
    await shared.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}, public`);
    const store = new PgStore(new PgliteSession(shared, false), opts);
    return {
      store,
      async dispose() {
        await store.close();
        await shared.exec(`DROP SCHEMA ${schema} CASCADE; SET search_path TO public`);
      },
    };
  };
}
