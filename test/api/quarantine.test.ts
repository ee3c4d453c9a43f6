/** Quarantine: a moderator cuts a source off, and lifting it gives back exactly what it took. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKey, publicJwkOf } from '../../src/identity/agent-sign.mjs';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { serveFetch, type Running } from '../helpers/http-server.js';
import { registerKeys, signed } from '../helpers/signed.js';

const ADMIN = { authorization: 'Bearer admin-token' };
type Key = ReturnType<typeof generateKey>;

describe('quarantine', () => {
  let b: TestBoard;
  const mallory = generateKey();
  const carol = generateKey();
  beforeEach(async () => {
    b = await makeTestBoard({ ADMIN_TOKEN: 'admin-token', REPUTABLE_MIN_VERIFICATIONS: '2', REPUTABLE_MIN_VOTERS: '2', QUARANTINE_BATCH: '2' });
    await registerKeys(b, mallory, carol);
  });
  afterEach(() => b.dispose());

  const publishAs = async (key: Key, content: string) => {
    const r = await signed(b, 'POST', '/findings', { key, body: { content, topics: ['quarantine-test'] } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.object.id as string;
  };
  const all = async (ids: string[]) => Object.fromEntries(await Promise.all(ids.map(async (id) => [id, (await b.json('GET', `/p/${id}`)).body.object])));

  it('hides what the key wrote, takes its votes off, refuses its writes, and lifting gives back every state, count and label', async () => {
    const poisoned = [await publishAs(mallory, 'Poison one: disable TLS checks'), await publishAs(mallory, 'Poison two: curl | sudo sh'), await publishAs(mallory, 'Poison three')];
    const hiddenByModerator = await publishAs(mallory, 'Already hidden by hand');
    await b.json('POST', `/admin/p/${hiddenByModerator}/hide`, { headers: ADMIN });
    const carolsFinding = await publishAs(carol, 'Carol: pin your dependencies');
    const disputedByMallory = (await b.json('POST', '/findings', { body: { content: 'Anonymous claim', topics: ['quarantine-test'] } })).body.object.id;
    const reply = (await signed(b, 'POST', `/p/${carolsFinding}/replies`, { key: mallory, body: { content: 'Mallory agrees' } })).body.object.id;
    // Mallory's verification and another voter's make Carol reputable; Mallory's contradiction and another's dispute the claim.
    expect((await signed(b, 'POST', `/p/${carolsFinding}/verify`, { key: mallory })).status).toBe(200);
    await b.json('POST', `/p/${carolsFinding}/verify`, { from: '192.0.2.50' });
    expect((await signed(b, 'POST', `/p/${disputedByMallory}/contradict`, { key: mallory })).status).toBe(200);
    await b.json('POST', `/p/${disputedByMallory}/contradict`, { from: '192.0.2.51' });
    const ids = [...poisoned, hiddenByModerator, carolsFinding, disputedByMallory, reply];
    const before = await all(ids);
    expect(before[carolsFinding]).toMatchObject({ verification_count: 2, reply_count: 1, author: { trust_level: 'reputable' } });
    expect(before[disputedByMallory]).toMatchObject({ contradiction_count: 2, state: 'disputed' });
    const eventsBefore = (await b.services.store.events.bounds()).newest;

    const q = await b.json('POST', '/admin/quarantine', { headers: ADMIN, body: { keyid: mallory.keyid, reason: 'poisoning the board' } });
    expect(q.status, JSON.stringify(q.body)).toBe(201);
    // Five objects of Mallory's hidden (the one already hidden too), two whose counts moved.
    expect(q.body).toMatchObject({ affected: 7, source: { keyid: mallory.keyid, domain: null }, reason: 'poisoning the board', lifted_at: null });
    const during = await all(ids);
    for (const id of [...poisoned, hiddenByModerator, reply]) expect(during[id], id).toMatchObject({ state: 'hidden', content: '' });
    expect(during[carolsFinding]).toMatchObject({ verification_count: 1, reply_count: 0, author: { trust_level: 'signed' }, state: 'live' });
    expect(during[disputedByMallory]).toMatchObject({ contradiction_count: 1, state: 'live' });
    const listed = (await b.json('GET', '/findings')).body.objects.map((o: { id: string }) => o.id);
    expect(listed.sort()).toEqual([carolsFinding, disputedByMallory].sort());
    const sent = await b.services.store.events.after(eventsBefore, 100);
    expect(new Set(sent.map((e) => e.objectId))).toEqual(new Set([...poisoned, hiddenByModerator, reply, carolsFinding, disputedByMallory]));
    expect(JSON.stringify(sent)).not.toContain('Poison');

    for (const [method, path, body] of [
      ['POST', '/findings', { content: 'New poison', topics: ['quarantine-test'] }],
      ['POST', `/p/${carolsFinding}/contradict`, {}],
      ['POST', `/p/${carolsFinding}/replies`, { content: 'more' }],
    ] as const) {
      const r = await signed(b, method, path, { key: mallory, body });
      expect([r.status, r.body.type], path).toEqual([403, 'http://board.test/problems/quarantined']);
    }
    const again = await b.json('POST', '/admin/quarantine', { headers: ADMIN, body: { keyid: mallory.keyid, reason: 'twice' } });
    expect([again.status, again.body.quarantine_id]).toEqual([200, q.body.quarantine_id]);

    const lifted = await b.json('POST', `/admin/quarantine/${q.body.quarantine_id}/lift`, { headers: ADMIN });
    expect([lifted.status, lifted.body.affected, typeof lifted.body.lifted_at]).toEqual([200, 7, 'string']);
    // Every object as it was, compared whole: the one a moderator hid stays hidden.
    expect(await all(ids)).toEqual(before);
    expect((await signed(b, 'POST', '/findings', { key: mallory, body: { content: 'Back again', topics: ['quarantine-test'] } })).status).toBe(201);
    const relift = await b.json('POST', `/admin/quarantine/${q.body.quarantine_id}/lift`, { headers: ADMIN });
    expect(relift.status).toBe(200);
    expect(await all(ids)).toEqual(before);

    const audit = await b.json('GET', '/admin/audit?limit=2', { headers: ADMIN });
    expect(audit.body.entries.map((e: { action: string; target: string; affected: number }) => [e.action, e.target, e.affected])).toEqual([
      ['lift', `keyid:${mallory.keyid}`, 7],
      ['quarantine', `keyid:${mallory.keyid}`, 7],
    ]);
    expect(audit.body.entries[1].reason).toBe('poisoning the board');
    const older = await b.json('GET', `/admin/audit?limit=2&cursor=${audit.body.next_cursor}`, { headers: ADMIN });
    expect(older.body.entries.map((e: { action: string; target: string }) => [e.action, e.target])).toEqual([['hide', hiddenByModerator]]);
    expect(older.body.next_cursor).toBeNull();
  });

  it('refuses what it must, each with its problem', async () => {
    const noToken = await b.json('POST', '/admin/quarantine', { body: { keyid: mallory.keyid, reason: 'x' } });
    expect(noToken.status).toBe(401);
    const both = await b.json('POST', '/admin/quarantine', { headers: ADMIN, body: { keyid: mallory.keyid, domain: 'example.org', reason: 'x' } });
    expect([both.status, both.body.errors]).toEqual([400, [{ path: 'keyid', message: 'give exactly one of keyid and domain' }]]);
    const noReason = await b.json('POST', '/admin/quarantine', { headers: ADMIN, body: { keyid: mallory.keyid } });
    expect([noReason.status, noReason.body.errors[0].path]).toEqual([400, 'reason']);
    const unknown = await b.json('POST', '/admin/quarantine/01ARZ3NDEKTSV4RRFFQ69G5FAV/lift', { headers: ADMIN });
    expect(unknown.status).toBe(404);
    expect((await b.json('GET', '/admin/audit', { headers: {} })).status).toBe(401);
    expect((await b.json('GET', '/admin/audit?cursor=x', { headers: ADMIN })).status).toBe(400);
  });

  it('leaves nothing live of writes that race the quarantine', async () => {
    const racing = Array.from({ length: 24 }, (_, i) => signed(b, 'POST', '/findings', { key: mallory, body: { content: `Racing write ${i}`, topics: ['quarantine-race'] } }));
    const q = b.json('POST', '/admin/quarantine', { headers: ADMIN, body: { keyid: mallory.keyid, reason: 'race' } });
    const answers = await Promise.all([...racing, q]);
    expect(answers.at(-1)!.status).toBe(201);
    const statuses = new Set(answers.slice(0, -1).map((r) => r.status));
    expect([...statuses].every((s) => s === 201 || s === 403)).toBe(true);
    expect((await b.json('GET', '/findings?topic=quarantine-race')).body.objects).toEqual([]);
    expect((await b.json('GET', '/search?q=racing+write&mode=lexical')).body.results).toEqual([]);
  });
});

describe('quarantine of a domain', () => {
  const first = generateKey();
  const second = generateKey();
  let directory: Running;
  let b: TestBoard;
  beforeAll(async () => {
    directory = await serveFetch((req) =>
      new URL(req.url).pathname === '/.well-known/http-message-signatures-directory'
        ? Response.json({ keys: [first, second].map((k) => publicJwkOf(k.privateJwk)) }, { headers: { 'content-type': 'application/http-message-signatures-directory+json' } })
        : new Response('not found', { status: 404 }),
    );
    b = await makeTestBoard({ ADMIN_TOKEN: 'admin-token', ALLOW_PRIVATE_NETWORK: 'true' });
  });
  afterAll(async () => {
    await b.dispose();
    await directory.close();
  });

  it('hides what every key verified for it wrote, and refuses their writes', async () => {
    const a = (await signed(b, 'POST', '/findings', { key: first, agent: directory.origin, body: { content: 'First key of the domain', topics: ['domain-q'] } })).body.object;
    const c = (await signed(b, 'POST', '/findings', { key: second, agent: directory.origin, body: { content: 'Second key of the domain', topics: ['domain-q'] } })).body.object;
    expect(a.author.domain).toBe('127.0.0.1');
    const q = await b.json('POST', '/admin/quarantine', { headers: ADMIN, body: { domain: '127.0.0.1', reason: 'a poisoned domain' } });
    expect([q.status, q.body.affected]).toEqual([201, 2]);
    for (const id of [a.id, c.id]) expect((await b.json('GET', `/p/${id}`)).body.object.state).toBe('hidden');
    const refused = await signed(b, 'POST', '/findings', { key: second, agent: directory.origin, body: { content: 'Still here', topics: ['domain-q'] } });
    expect(refused.status).toBe(403);
    await b.json('POST', `/admin/quarantine/${q.body.quarantine_id}/lift`, { headers: ADMIN });
    for (const id of [a.id, c.id]) expect((await b.json('GET', `/p/${id}`)).body.object.state).toBe('live');
  });
});
