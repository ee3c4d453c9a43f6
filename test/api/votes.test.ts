/** GET /p/{id}/votes and the object page: what voters said (notes, evidence) is shown, safely. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateKey, publicJwkOf } from '../../src/identity/agent-sign.mjs';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { signed } from '../helpers/signed.js';

describe('votes with their notes and evidence', () => {
  let b: TestBoard;
  let id: string;
  beforeEach(async () => {
    b = await makeTestBoard({ ADMIN_TOKEN: 'admin-token' });
    id = (await b.json('POST', '/findings', { body: { content: 'WAL mode fixes SQLITE_BUSY', topics: ['sqlite'] } })).body.object.id;
  });
  afterEach(() => b.dispose());

  it('lists every vote newest first, anonymous voters anonymous, and pages with next_cursor', async () => {
    await b.json('POST', `/p/${id}/verify`, { from: '192.0.2.1', body: { note: 'Works on 3.45', evidence_url: 'https://example.org/run/1' } });
    b.clock.advance(1000);
    await b.json('POST', `/p/${id}/contradict`, { from: '192.0.2.2', body: { note: '<script>x</script> fails on NFS' } });
    b.clock.advance(1000);
    await b.json('POST', `/p/${id}/verify`, { from: '192.0.2.3' });
    const all = await b.json('GET', `/p/${id}/votes`);
    expect(all.status).toBe(200);
    expect(all.body.object_id).toBe(id);
    expect(all.body.votes).toEqual([
      { kind: 'verify', note: null, evidence_url: null, correction_id: null, voter: null, created_at: '2026-03-01T12:00:02.000Z', updated_at: '2026-03-01T12:00:02.000Z' },
      { kind: 'contradict', note: '<script>x</script> fails on NFS', evidence_url: null, correction_id: null, voter: null, created_at: '2026-03-01T12:00:01.000Z', updated_at: '2026-03-01T12:00:01.000Z' },
      { kind: 'verify', note: 'Works on 3.45', evidence_url: 'https://example.org/run/1', correction_id: null, voter: null, created_at: '2026-03-01T12:00:00.000Z', updated_at: '2026-03-01T12:00:00.000Z' },
    ]);
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.meta.via).toBeTruthy();
    // Two pages of two and one.
    const first = await b.json('GET', `/p/${id}/votes?limit=2`);
    expect(first.body.votes.map((v: { kind: string }) => v.kind)).toEqual(['verify', 'contradict']);
    const second = await b.json('GET', `/p/${id}/votes?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.votes.map((v: { note: string }) => v.note)).toEqual(['Works on 3.45']);
    expect(second.body.next_cursor).toBeNull();
  });

  it('a moved vote moves to the top with its new note', async () => {
    await b.json('POST', `/p/${id}/verify`, { from: '192.0.2.1', body: { note: 'first thought' } });
    await b.json('POST', `/p/${id}/verify`, { from: '192.0.2.2' });
    b.clock.advance(5000);
    await b.json('POST', `/p/${id}/contradict`, { from: '192.0.2.1', body: { note: 'second thought' } });
    const votes = (await b.json('GET', `/p/${id}/votes`)).body.votes;
    expect(votes[0]).toMatchObject({ kind: 'contradict', note: 'second thought', created_at: '2026-03-01T12:00:00.000Z', updated_at: '2026-03-01T12:00:05.000Z' });
    expect(votes).toHaveLength(2);
  });

  it('answers 404 for an unknown object and 400 for a bad cursor or limit, as problems', async () => {
    const missing = await b.json('GET', '/p/01ARZ3NDEKTSV4RRFFQ69G5FAV/votes');
    expect(missing.status).toBe(404);
    const bad = await b.json('GET', `/p/${id}/votes?cursor=not-a-cursor&limit=0`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(['query/limit']);
    const cursor = await b.json('GET', `/p/${id}/votes?cursor=bm9wZQ`);
    expect(cursor.status).toBe(400);
    expect(cursor.body.errors).toEqual([{ path: 'query/cursor', message: 'is not a cursor this listing gave out' }]);
  });

  it('lists nothing for a hidden object, like its replies', async () => {
    await b.json('POST', `/p/${id}/contradict`, { from: '192.0.2.1', body: { note: 'quotes the hidden text' } });
    await b.json('POST', `/admin/p/${id}/hide`, { headers: { authorization: 'Bearer admin-token' } });
    expect((await b.json('GET', `/p/${id}/votes`)).body.votes).toEqual([]);
    expect(await (await b.call('GET', `/p/${id}`, { headers: { accept: 'text/html' } })).text()).not.toContain('quotes the hidden text');
  });

  it('the object page shows notes escaped and evidence as nofollow links', async () => {
    await b.json('POST', `/p/${id}/verify`, { from: '192.0.2.1', body: { note: 'Works on 3.45', evidence_url: 'https://example.org/run/1' } });
    await b.json('POST', `/p/${id}/contradict`, { from: '192.0.2.2', body: { note: '<script>x</script> fails on NFS' } });
    const page = await (await b.call('GET', `/p/${id}`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('What voters said');
    expect(page).toContain('Works on 3.45');
    expect(page).toContain('&lt;script&gt;x&lt;/script&gt; fails on NFS');
    expect(page).not.toContain('<script>x</script>');
    expect(page).toContain('<a href="https://example.org/run/1" rel="nofollow ugc noopener noreferrer">');
  });
});

describe('votes arriving together', () => {
  let b: TestBoard;
  beforeEach(async () => {
    b = await makeTestBoard({ MAX_IN_FLIGHT: '1000' });
  });
  afterEach(() => b.dispose());

  it("on one signed author's objects, from many voters at once: every vote lands and each count is exact", async () => {
    const author = generateKey();
    expect((await signed(b, 'POST', '/keys', { key: author, body: { jwk: publicJwkOf(author.privateJwk) } })).status).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await signed(b, 'POST', '/findings', { key: author, body: { content: `finding ${i} on lock order`, topics: ['locks'] } })).body.object.id);
    // Each vote locks its object and its author's standing: on PostgreSQL, writes of batches running at once.
    const votes = await Promise.all(Array.from({ length: 200 }, (_, n) => b.call('POST', `/p/${ids[n % 10]}/${Math.floor(n / 10) % 5 ? 'verify' : 'contradict'}`, { body: {}, from: `198.51.100.${n}` })));
    expect(votes.map((r) => r.status)).toEqual(votes.map(() => 200));
    for (const id of ids) {
      const o = (await b.json('GET', `/p/${id}`)).body.object;
      expect([o.verification_count, o.contradiction_count]).toEqual([16, 4]);
    }
  });
});
