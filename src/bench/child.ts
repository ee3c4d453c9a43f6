/** The processes and stores a bench measures. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { PACKAGE_ROOT } from '../paths.js';

/** Starts a child that prints a JSON line with "url" once it listens. */
export function startChild(args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { cwd: PACKAGE_ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const m = /"url":"(http:[^"]+)"/.exec(out);
      if (m) {
        // From here on, drain the per-request log lines without keeping them.
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve({ child, url: m[1]! });
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`child exited ${code}: ${out}`)));
  });
}

/** The stores to measure: SQLite always; PostgreSQL + Redis when the server answers (BENCH_DATABASE_URL, BENCH_REDIS_URL). */
export async function storeSetups(dir: string): Promise<{ name: string; env: Record<string, string>; dispose: () => Promise<void> }[]> {
  const setups: { name: string; env: Record<string, string>; dispose: () => Promise<void> }[] = [{ name: 'SQLite', env: { DATABASE_URL: `sqlite:${join(dir, 'board.db')}` }, dispose: async () => undefined }];
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `ab_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  } catch (err) {
    process.stdout.write(`PostgreSQL at ${url} not measured: ${(err as Error).message}\n`);
    await admin.end().catch(() => undefined);
    return setups;
  }
  const pgUrl = new URL(url);
  pgUrl.searchParams.set('options', `-c search_path=${schema}`);
  setups.push({
    name: 'PostgreSQL',
    env: { DATABASE_URL: pgUrl.toString(), REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', REDIS_PREFIX: `${schema}:` },
    async dispose() {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
      await admin.end().catch(() => undefined);
    },
  });
  return setups;
}
