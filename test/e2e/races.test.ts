/**
 * Races between real processes: two `serve` processes on one SQLite file, hit at the same time
 * over real sockets. In one process, calls into the synchronous SQLite driver run one after
 * another and cannot race; here the database's own locking is what keeps the rules.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/store/sqlite/sqlite-migrations.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { ROOT, startServer } from '../helpers/cli.js';

describe('two board processes on one database file', () => {
  let dir: string;
  const boards: { child: ChildProcess; url: string }[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentboard-races-'));
    const env = { DATABASE_URL: `sqlite:${join(dir, 'board.db')}`, EMBEDDINGS: 'none', TRUST_PROXY: 'true', RATE_LIMIT_ANON_WRITES: '0', RATE_LIMIT_READS: '0', LOG_LEVEL: 'warn' };
    // Started together, they also race each other's migrations and the voter-hash secret.
    boards.push(...(await Promise.all([startServer({ ...env, LOG_LEVEL: 'info' }), startServer({ ...env, LOG_LEVEL: 'info' })])));
  }, 60_000);
  afterAll(() => {
    for (const b of boards) b.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (i: number, path: string, body: unknown, from = '198.51.100.1') =>
    fetch(`${boards[i % 2]!.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  it('identical publishes to both at once: exactly one 201, the rest deduplicated to it', async () => {
    const body = { content: 'Racing identical publishes across processes', topics: ['race'] };
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => post(i, '/findings', body)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200 && r.body.deduplicated === true)).toHaveLength(23);
    expect(new Set(results.map((r) => r.body.object.id)).size).toBe(1);
  });

  it("one voter's votes through both at once count once; many voters' votes are none of them lost", async () => {
    const id = (await post(0, '/findings', { content: 'Something to vote on', topics: ['race'] })).body.object.id;
    const same = await Promise.all(Array.from({ length: 16 }, (_, i) => post(i, `/p/${id}/verify`, {}, '203.0.113.50')));
    expect(same.every((r) => r.status === 200)).toBe(true);
    const many = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i, `/p/${id}/verify`, {}, `203.0.113.${100 + i}`)));
    expect(many.every((r) => r.status === 200)).toBe(true);
    for (const b of boards) {
      const o = ((await (await fetch(`${b.url}/p/${id}`)).json()) as any).object;
      expect(o.verification_count).toBe(21);
    }
  });

  it('replies through both at once keep the parent count exact', async () => {
    const id = (await post(0, '/findings', { content: 'A thread to reply to', topics: ['race'] })).body.object.id;
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i, `/p/${id}/replies`, { content: `reply ${i}` })));
    expect(replies.every((r) => r.status === 201)).toBe(true);
    const o = ((await (await fetch(`${boards[1]!.url}/p/${id}`)).json()) as any).object;
    expect(o.reply_count).toBe(20);
  });
});

describe('kill -9 during writes', () => {
  it('loses no acknowledged object: a restarted board serves every one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentboard-kill9-'));
    const env = { DATABASE_URL: `sqlite:${join(dir, 'board.db')}`, EMBEDDINGS: 'none', RATE_LIMIT_ANON_WRITES: '0' };
    try {
      const first = await startServer(env);
      const acked: string[] = [];
      let killed = false;
      const writer = async (w: number) => {
        for (let i = 0; !killed; i++) {
          try {
            const r = await fetch(`${first.url}/findings`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ content: `durable ${w}-${i}`, topics: ['kill9'] }),
            });
            if (r.status === 201) acked.push(((await r.json()) as any).object.id);
          } catch {
            return; // the connection died with the process
          }
          if (acked.length >= 150 && !killed) {
            killed = true;
            first.child.kill('SIGKILL');
          }
        }
      };
      await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
      expect(acked.length).toBeGreaterThanOrEqual(150);
      const second = await startServer(env);
      try {
        const missing = [];
        for (const id of acked) if ((await fetch(`${second.url}/p/${id}`)).status !== 200) missing.push(id);
        expect(missing).toEqual([]);
      } finally {
        second.child.kill('SIGKILL');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('migrations', () => {
  it('six processes migrating one new file at the same instant: all succeed, each version applied once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentboard-migrate-'));
    try {
      const db = join(dir, 'board.db');
      // Each process loads first, then waits for the same instant to migrate: a real race.
      const go = Date.now() + 4000;
      const script = `import { SqliteStore } from ${JSON.stringify(join(ROOT, 'src/store/sqlite/sqlite-store.ts'))};
        const store = new SqliteStore(${JSON.stringify(db)});
        await new Promise((r) => setTimeout(r, ${go} - Date.now()));
        await store.migrate();
        await store.close();`;
      const runs = await Promise.all(
        Array.from(
          { length: 6 },
          () =>
            new Promise<{ code: number | null; stderr: string }>((resolve) => {
              const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
              let stderr = '';
              child.stderr.on('data', (d) => (stderr += d));
              child.on('close', (code) => resolve({ code, stderr }));
            }),
        ),
      );
      expect(runs.map((r) => r.code), runs.map((r) => r.stderr).join('\n')).toEqual([0, 0, 0, 0, 0, 0]);
      const store = new SqliteStore(db);
      try {
        await store.migrate();
        const versions = (await import('better-sqlite3')).default(db).prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[];
        expect(versions.map((v) => v.version)).toEqual(migrations.map((m) => m.version));
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
