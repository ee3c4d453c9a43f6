/** The processes and stores a bench measures. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PACKAGE_ROOT } from '../paths.js';
import { BENCH } from './settings.js';

/**
 * Starts a child that prints a JSON line with "url" once it listens. Its output goes to a file
 * (`logFile`, else one beside the system's temp files), as a log collector would take it: read
 * through a pipe, a board's per-request lines would cost the load generator's process.
 */
export function startChild(args: string[], env: Record<string, string>, logFile?: string): Promise<{ child: ChildProcess; url: string }> {
  const file = logFile ?? join(tmpdir(), `agentboard-bench-${process.pid}-${randomBytes(4).toString('hex')}.log`);
  const fd = openSync(file, 'w');
  const child = spawn(process.execPath, args, { cwd: PACKAGE_ROOT, env: { PATH: BENCH.PATH, ...env }, stdio: ['ignore', fd, 'inherit'] });
  closeSync(fd);
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      // Only the start of the file: the line comes before any request is served.
      const head = readFileSync(file, 'utf8').slice(0, 64 * 1024);
      const m = /"url":"(http:[^"]+)"/.exec(head);
      if (!m) return;
      clearInterval(timer);
      child.off('exit', onExit);
      child.once('exit', () => rmSync(file, { force: true }));
      resolve({ child, url: m[1]! });
    }, 50);
    const onExit = (code: number | null) => {
      clearInterval(timer);
      reject(new Error(`child exited ${code}: ${readFileSync(file, 'utf8').slice(0, 4000)}`));
    };
    child.once('exit', onExit);
  });
}

/** The stores to measure: SQLite always; PostgreSQL + Redis when the server answers (BENCH_DATABASE_URL, BENCH_REDIS_URL). */
export interface StoreSetup {
  name: string;
  env: Record<string, string>;
  /**
   * Brings a freshly seeded database to the state a running one is kept in: on PostgreSQL,
   * statistics for every table (autovacuum analyzes a table within a minute of its rows
   * changing by a tenth; seeded and measured at once, the planner would still guess).
   */
  steady: () => Promise<void>;
  dispose: () => Promise<void>;
}

/** The PostgreSQL server at BENCH_DATABASE_URL, connected; null (and why, printed) when it does not answer. */
export async function benchPostgres(): Promise<pg.Client | null> {
  const url = BENCH.BENCH_DATABASE_URL;
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    return admin;
  } catch (err) {
    process.stdout.write(`PostgreSQL at ${url} not measured: ${(err as Error).message}\n`);
    await admin.end().catch(() => undefined);
    return null;
  }
}

/** A schema of its own on `admin`'s server: a board's settings to run there, its Redis keys under the schema's name. */
export async function benchSchema(admin: pg.Client, prefix: string): Promise<Omit<StoreSetup, 'name'>> {
  const schema = `${prefix}_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(BENCH.BENCH_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    env: { DATABASE_URL: url.toString(), REDIS_URL: BENCH.BENCH_REDIS_URL, REDIS_PREFIX: `${schema}:` },
    async steady() {
      const tables = await admin.query<{ name: string }>('SELECT tablename AS name FROM pg_tables WHERE schemaname = $1', [schema]);
      for (const t of tables.rows) await admin.query(`ANALYZE ${schema}."${t.name}"`);
    },
    dispose: async () => void (await admin.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined)),
  };
}

export async function storeSetups(dir: string): Promise<StoreSetup[]> {
  const setups: StoreSetup[] = [{ name: 'SQLite', env: { DATABASE_URL: `sqlite:${join(dir, 'board.db')}` }, steady: async () => undefined, dispose: async () => undefined }];
  const admin = await benchPostgres();
  if (!admin) return setups;
  const schema = await benchSchema(admin, 'ab_bench');
  setups.push({
    name: 'PostgreSQL',
    ...schema,
    async dispose() {
      await schema.dispose();
      await admin.end().catch(() => undefined);
    },
  });
  return setups;
}
