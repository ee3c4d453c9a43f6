/**
 * SQLite on a full disk: a board process whose database lives on a small tmpfs, filled while it
 * takes writes. Refused writes are problem documents (503 with Retry-After), reads keep
 * answering, nothing acknowledged is lost, writes work again once space is freed, and the file
 * passes `PRAGMA integrity_check`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ON_CI } from '../helpers/ci.js';
import { startServer } from '../helpers/cli.js';

const mountSmallDisk = (at: string) => execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=6m', 'tmpfs', at], { stdio: 'pipe' });
/** Why this machine does not let the test mount a tmpfs of its own (root, and mounts allowed), or null. */
function whyNoMount(): string | null {
  const probe = mkdtempSync(join(tmpdir(), 'agentboard-probe-'));
  try {
    mountSmallDisk(probe);
    execFileSync('umount', [probe]);
    return null;
  } catch (err) {
    return (err as Error).message.split('\n')[0]!;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
const cannotMount = whyNoMount();
if (cannotMount && ON_CI) throw new Error(`the disk-full test must run on CI, but mounting a tmpfs failed: ${cannotMount}`);
if (cannotMount) console.warn(`skipped: SQLite on a full disk: cannot mount a tmpfs here (${cannotMount})`);

describe.skipIf(cannotMount !== null)('SQLite on a full disk', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-full-'));
  const db = join(dir, 'board.db');
  beforeAll(async () => {
    mountSmallDisk(dir);
    server = await startServer({ DATABASE_URL: `sqlite:${db}`, EMBEDDINGS: 'none', RATE_LIMIT_ANON_WRITES: '0', RATE_LIMIT_READS: '0' });
  });
  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      const exited = new Promise((r) => server.child.once('exit', r));
      server.child.kill('SIGKILL');
      await exited;
    }
    try {
      execFileSync('umount', [dir]);
    } catch {
      // Already unmounted, or never mounted.
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const publish = (i: number) =>
    fetch(`${server.url}/findings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: `finding ${i} ${'padding text '.repeat(200)}`, topics: ['disk-full'] }) });

  it('refuses writes with 503 problems while full, keeps reads, loses nothing acknowledged, and recovers when space is freed', async () => {
    const acknowledged: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await publish(i);
      expect(r.status).toBe(201);
      acknowledged.push((await r.json()).object.id);
    }
    // Fill what is left of the disk, then keep writing.
    const filler = join(dir, 'filler');
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' });
    } catch {
      // dd stops with an error once the disk is full: that is the point.
    }
    const statuses = new Map<number, number>();
    for (let i = 20; i < 120; i++) {
      const r = await publish(i);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status === 201) acknowledged.push((await r.json()).object.id);
      else {
        expect(r.status).toBe(503);
        expect(r.headers.get('content-type')).toBe('application/problem+json');
        expect(r.headers.get('retry-after')).toBeTruthy();
      }
    }
    expect(statuses.get(503) ?? 0).toBeGreaterThan(0);
    expect([...statuses.keys()].every((s) => s === 201 || s === 503)).toBe(true);
    expect((await fetch(`${server.url}/findings?topic=disk-full&limit=5`)).status).toBe(200);
    expect((await fetch(`${server.url}/p/${acknowledged[0]}`)).status).toBe(200);

    rmSync(filler);
    let after: Response | null = null;
    for (let i = 0; i < 50; i++) {
      after = await publish(1000 + i);
      if (after.status === 201) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(after!.status).toBe(201);
    acknowledged.push((await after!.json()).object.id);
    for (const id of acknowledged) expect((await fetch(`${server.url}/p/${id}`)).status).toBe(200);

    server.child.kill('SIGKILL');
    await new Promise((r) => server.child.once('exit', r));
    const check = new Database(db, { readonly: true });
    try {
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
      const stored = new Set((check.prepare('SELECT id FROM objects').all() as { id: string }[]).map((r) => r.id));
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      check.close();
    }
  });
});
