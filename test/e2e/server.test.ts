/** The real CLI process on an ephemeral loopback port, spoken to over real sockets. */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cleanEnv as env, ROOT, serveForSuite } from '../helpers/cli.js';

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

describe('agentboard serve', () => {
  const server = serveForSuite((dir) => ({ DATABASE_URL: `sqlite:${join(dir, 'data', 'board.db')}`, RATE_LIMIT_ANON_WRITES: '0' }));

  it('creates its database file and answers health', async () => {
    expect(existsSync(join(server.dir, 'data', 'board.db'))).toBe(true);
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', d1: 'ok', kv: 'ok' });
  });

  it('with no setting, serves hybrid search from the bundled model at once, and says so once in the log', async () => {
    const ready = server.output()
      .split('\n')
      .filter((l) => l.includes('"embeddings ready"'))
      .map((l) => JSON.parse(l));
    expect(ready).toHaveLength(1);
    expect(ready[0]).toMatchObject({ provider: 'local', model: 'local:potion-base-2M', from: join(ROOT, 'models', 'potion-base-2M'), dimension: 64 });
    // The start-up line says how the semantic leg is answered.
    const listening = server.output()
      .split('\n')
      .find((l) => l.includes('"agentboard listening"'));
    expect(JSON.parse(listening!).vectors).toEqual({ available: true, answeredBy: 'process-memory' });
    const created = await fetch(`${server.url}/findings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'The connection pool runs dry when every client holds a session', topics: ['postgres'] }),
    });
    expect(created.status).toBe(201);
    // The worker embeds within seconds; poll the meaning-only leg until it finds the object.
    let body: any;
    for (let i = 0; i < 50; i++) {
      body = await (await fetch(`${server.url}/search?q=${encodeURIComponent('database connections exhausted')}&mode=semantic`)).json();
      if (body.results.length > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(body.degraded).toEqual([]);
    expect(body.results[0].matched_by).toContain('semantic');
    const hybrid: any = await (await fetch(`${server.url}/search?q=pool`)).json();
    expect(hybrid.degraded).toEqual([]);
  });

  it('logs one line per request with the client address', async () => {
    await fetch(`${server.url}/findings?limit=1`);
    // The line reaches this process through the child's stdout pipe, a moment after the answer.
    const find = () =>
      server.output()
        .split('\n')
        .filter((l) => l.includes('"msg":"request"'))
        .map((l) => JSON.parse(l))
        .find((l) => l.path === '/findings' && l.method === 'GET');
    for (let i = 0; i < 50 && !find(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(find()).toMatchObject({ client: '127.0.0.1', status: 200, request_id: expect.any(String) });
  });

  it('8 identical publishes at once: one object, one 201, seven 200 deduplicated', async () => {
    const body = JSON.stringify({ content: 'Concurrent publish over real sockets', topics: ['e2e'] });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => fetch(`${server.url}/findings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(results.filter((r) => r.body.deduplicated === true)).toHaveLength(7);
    expect(new Set(results.map((r) => r.body.object.id)).size).toBe(1);
  });

  it('413 for a chunked body over 32 KB without Content-Length, and keeps serving', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/findings`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      for (let i = 0; i < 20; i++) req.write('x'.repeat(4096));
      req.end();
    });
    expect(status).toBe(413);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it('shuts down gracefully on SIGTERM', async () => {
    const done = exited(server.child);
    server.child.kill('SIGTERM');
    expect(await done).toBe(0);
  });
});

describe('agentboard CLI', () => {
  it('migrate applies migrations and exits 0', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentboard-cli-'));
    try {
      const r = spawnSync(process.execPath, [...CLI, 'migrate'], { cwd: ROOT, env: env({ DATABASE_URL: `sqlite:${join(dir, 'b.db')}` }), encoding: 'utf8' });
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('migrations applied');
      expect(existsSync(join(dir, 'b.db'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('refuses bad configuration listing every problem, exit 2', () => {
    const r = spawnSync(process.execPath, [...CLI, 'serve'], { cwd: ROOT, env: env({ PORT: 'x', RATE_LIMIT_READS: '-1' }), encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('PORT');
    expect(r.stderr).toContain('RATE_LIMIT_READS');
  });
  it('prints usage for help and refuses unknown commands', () => {
    expect(spawnSync(process.execPath, [...CLI, 'help'], { cwd: ROOT, env: env(), encoding: 'utf8' }).stdout).toContain('usage: agentboard');
    expect(spawnSync(process.execPath, [...CLI, 'frobnicate'], { cwd: ROOT, env: env(), encoding: 'utf8' }).status).toBe(2);
  });
});
