import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ulidTime } from '../../src/domain/ulid.js';
import { exportNdjson } from '../../src/service/transfer/ndjson-export.js';
import { ImportError, importNdjson } from '../../src/service/transfer/ndjson-import.js';
import { makeTestBoard, T0, type TestBoard } from '../helpers/board.js';
import { ROOT } from '../helpers/paths.js';

const DAY = 86_400_000;
const lines = (...objs: object[]) => Readable.from(objs.map((o) => `${typeof o === 'string' ? o : JSON.stringify(o)}\n`));

async function exportAll(b: TestBoard, commonsOnly = false): Promise<string[]> {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (d) => chunks.push(String(d)));
  await exportNdjson(b.services.store, out, { clock: b.clock, limits: b.services.config.limits, baseUrl: 'http://board.test', commonsOnly });
  return chunks.join('').split('\n').filter(Boolean);
}

describe('NDJSON import and export', () => {
  let b: TestBoard;
  beforeEach(async () => {
    b = await makeTestBoard({ ADMIN_TOKEN: 'admin-token' });
  });
  afterEach(async () => b.dispose());
  const imp = (input: Readable) => importNdjson(b.services.store, input, { now: b.clock.now(), limits: b.services.config.limits });

  it('keeps created_at, expires_at and counts as given, and makes ids that sort by creation', async () => {
    const created = new Date(T0 - 10 * DAY).toISOString();
    const n = await imp(
      lines(
        { type: 'finding', title: '', content: 'old finding', topics: ['A B'], created_at: created, expires_at: new Date(T0 + 400 * DAY).toISOString(), verification_count: 8, contradiction_count: 3 },
        { type: 'status', content: 'a status without title', topics: ['ops'] },
      ),
    );
    expect(n).toBe(2);
    const list = (await b.json('GET', '/findings')).body.objects;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ title: 'old finding', topics: ['a-b'], created_at: created, verification_count: 8, contradiction_count: 3, state: 'live' });
    expect(ulidTime(list[0].id)).toBe(T0 - 10 * DAY);
    const status = (await b.json('GET', '/search?q=status%20without&type=status')).body.results[0];
    expect(status.expires_at).toBe(new Date(T0 + 6 * 3600_000).toISOString());
  });

  it('carries spaces through export and import, and an export of the commons holds nothing of any space', async () => {
    const admin = { author: { id: 'kid-space-admin', trustLevel: 'signed' as const, domain: null }, voterId: 'kid-space-admin' };
    await b.services.spaces.create(admin, { slug: 'crew', name: 'Crew' });
    const secret = (await b.services.board.publish('finding', { content: 'crew-only-marker words', topics: ['crew-topic'], space: 'crew' }, admin)).object;
    await b.services.board.reply(secret.id, { content: 'crew-only-marker reply' }, admin);
    const copy = (await b.services.promotions.promote(secret.id, admin)).copy;
    await b.json('POST', '/findings', { body: { content: 'public words', topics: ['open'] } });
    const all = await exportAll(b);
    expect(all.map((l) => JSON.parse(l).space).sort()).toEqual(['crew', 'crew', null, null].sort());
    const commons = await exportAll(b, true);
    expect(commons).toHaveLength(2);
    // The promoted copy says what the space object said; nothing else of the space comes out.
    expect(commons.map((l) => JSON.parse(l).space)).toEqual([null, null]);
    expect(commons.join('\n')).not.toContain('crew-only-marker reply');
    expect(commons.join('\n')).not.toContain(secret.id);
    expect(commons.map((l) => JSON.parse(l).id)).toContain(copy.id);
    // Into a fresh board: the space's objects stay in their space, with the promotion recorded.
    const fresh = await makeTestBoard();
    try {
      expect(await importNdjson(fresh.services.store, Readable.from(all.map((l) => `${l}\n`)), { now: fresh.clock.now(), limits: fresh.services.config.limits })).toBe(4);
      expect((await fresh.json('GET', `/p/${secret.id}`)).status).toBe(404);
      expect(await fresh.services.store.objects.get(secret.id, { now: fresh.clock.now(), disputeMinContradictions: 2 })).toMatchObject({ space: 'crew', promotedTo: copy.id, replyCount: 1 });
      expect((await fresh.json('GET', '/findings')).body.objects.map((o: { id: string }) => o.id).sort()).toEqual(commons.map((l) => JSON.parse(l).id).sort());
    } finally {
      await fresh.dispose();
    }
  });

  it('round-trips: export, import into a fresh board, export again gives the same lines', async () => {
    const root = (await b.json('POST', '/findings', { body: { title: 'Root', content: 'root content', topics: ['x'], source_url: 'https://example.org' } })).body.object;
    await b.json('POST', `/p/${root.id}/replies`, { body: { content: 'a reply' } });
    await b.json('POST', `/p/${root.id}/verify`, { from: '192.0.2.7' });
    const hidden = (await b.json('POST', '/findings', { body: { content: 'hide me', topics: ['y'] } })).body.object;
    await b.json('POST', `/admin/p/${hidden.id}/hide`, { headers: { authorization: 'Bearer admin-token' } });
    const author = { author: { id: 'kid-export', trustLevel: 'signed' as const, domain: null }, voterId: 'kid-export' };
    const older = (await b.services.board.publish('finding', { content: 'first version', topics: ['versions'] }, author)).object;
    const newer = (await b.services.board.publish('finding', { content: 'second version', topics: ['versions'], supersedes: older.id }, author)).object;
    const first = await exportAll(b);
    expect(first).toHaveLength(5);
    const exported = first.map((l) => JSON.parse(l));
    expect(exported.find((o) => o.id === older.id)).toMatchObject({ state: 'superseded', superseded_by: newer.id, supersedes: null });
    expect(exported.find((o) => o.id === newer.id)).toMatchObject({ state: 'live', superseded_by: null, supersedes: older.id });
    // Hidden text is kept in the export: it is the backup path.
    expect(first.map((l) => JSON.parse(l)).find((o) => o.id === hidden.id)).toMatchObject({ state: 'hidden', content: 'hide me' });

    const fresh = await makeTestBoard();
    try {
      fresh.clock.set(b.clock.now());
      const n = await importNdjson(fresh.services.store, lines(...first.map((l) => JSON.parse(l))), { now: fresh.clock.now(), limits: fresh.services.config.limits });
      expect(n).toBe(5);
      expect(await exportAll(fresh)).toEqual(first);
      expect((await fresh.json('GET', '/findings?topic=versions')).body.objects.map((o: { id: string }) => o.id)).toEqual([newer.id]);
      expect((await fresh.json('GET', `/p/${hidden.id}`)).body.object).toMatchObject({ state: 'hidden', content: '' });
    } finally {
      await fresh.dispose();
    }
  });

  it.each([
    ['not JSON', ['{"type":"finding","content":"ok","topics":["x"]}', '{oops'], /^line 2: not valid JSON/],
    ['a bad field', [{ type: 'finding', content: 'ok', topics: ['x'] }, { type: 'finding', content: '', topics: [] }], /^line 2: content must not be empty; topics must have at least 1 topic$/],
    ['an unknown type', [{ type: 'note', content: 'x', topics: ['x'] }], /^line 1: type /],
    ['a reply without parent', [{ type: 'response', content: 'x', topics: ['x'] }], /^line 1: parent_id is required/],
    ['a reply before its parent', [{ type: 'response', content: 'x', topics: ['x'], parent_id: '01J00000000000000000000000' }], /^line 1: parent 01J00000000000000000000000 does not exist/],
    ['an artifact without source', [{ type: 'artifact', content: 'x', topics: ['x'] }], /^line 1: source_url is required/],
    ['a superseded object that names no successor', [{ type: 'finding', content: 'x', topics: ['x'], state: 'superseded' }], /^line 1: superseded_by is required/],
    ['a duplicate id', [{ id: '01J00000000000000000000001', type: 'finding', content: 'a', topics: ['x'] }, { id: '01J00000000000000000000001', type: 'finding', content: 'b', topics: ['x'] }], /^line 2: an object with id/],
  ])('stops at %s with its line number and keeps nothing', async (_, input, message) => {
    const err = await imp(lines(...(input as object[]))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as Error).message).toMatch(message);
    expect(await exportAll(b)).toEqual([]);
  });

  it('skips blank lines and counts lines as written', async () => {
    const err = await imp(Readable.from(['\n', '{"type":"finding","content":"a","topics":["x"]}\n', '\n', '{"type":1}\n'])).catch((e: unknown) => e);
    expect((err as ImportError).line).toBe(4);
  });
});

describe('agentboard import / export (CLI)', () => {
  it('imports a file, embeds it, and exports it back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentboard-cli-transfer-'));
    try {
      const file = join(dir, 'in.ndjson');
      writeFileSync(file, Array.from({ length: 50 }, (_, i) => JSON.stringify({ type: 'finding', content: `imported finding ${i}`, topics: ['bulk'] })).join('\n'));
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATABASE_URL: `sqlite:${join(dir, 'b.db')}`,
      };
      const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args], { cwd: ROOT, env, encoding: 'utf8' });
      const imported = cli('import', file);
      expect(imported.status).toBe(0);
      expect(imported.stderr).toContain('import 50 objects');
      expect(imported.stderr).toContain('embed 50 objects embedded');
      const out = join(dir, 'out.ndjson');
      const exported = cli('export', out);
      expect(exported.status).toBe(0);
      const rows = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(rows).toHaveLength(50);
      expect(rows.every((r) => r.topics[0] === 'bulk')).toBe(true);
      writeFileSync(file, '{"type":"finding","content":"fine","topics":["x"]}\n{"type":"finding"}\n');
      const bad = cli('import', file);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain('line 2: content is required');
      expect(cli('export').stdout.trim().split('\n')).toHaveLength(50);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports objects embedded, not attempts: a failing embedder embeds none and says what is left', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentboard-cli-embed-count-'));
    try {
      const file = join(dir, 'in.ndjson');
      const lines = [...Array.from({ length: 3 }, (_, i) => ({ content: `plain words ${i}` })), { content: '☃☃ ☃' }].map((o) => JSON.stringify({ type: 'finding', topics: ['zz'], title: '☃', ...o }));
      writeFileSync(file, lines.join('\n'));
      const run = (db: string, extra: Record<string, string> = {}) =>
        spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'import', file], {
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: `sqlite:${join(dir, db)}`, ...extra },
          encoding: 'utf8',
        });
      const local = run('a.db');
      expect(local.status).toBe(0);
      expect(local.stderr).toContain('embed 4 objects embedded\n');
      // An embedder that cannot be reached embeds nothing, and the import still succeeds.
      const down = run('b.db', { EMBEDDINGS: 'openai', EMBEDDINGS_URL: 'http://127.0.0.1:9/v1', EMBEDDINGS_RETRIES: '0', EMBEDDINGS_TIMEOUT_MS: '500' });
      expect(down.status).toBe(0);
      expect(down.stderr).toContain('embed 0 objects embedded, 4 left for the server');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
