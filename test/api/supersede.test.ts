/** Superseding: an author replaces an earlier object with a new one, on every surface that shows either. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKey, publicJwkOf, type PrivateJwk } from '../../src/identity/agent-sign.mjs';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { serveFetch, type Running } from '../helpers/http-server.js';
import { readSse } from '../helpers/sse.js';
import { parsedBody, registerKeys, signed } from '../helpers/signed.js';

const finding = (content: string, extra: Record<string, unknown> = {}) => ({ content, topics: ['supersede-test'], ...extra });
const UNKNOWN = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

describe('supersede', () => {
  let b: TestBoard;
  const alice = generateKey();
  const bob = generateKey();
  beforeEach(async () => {
    b = await makeTestBoard({ ADMIN_TOKEN: 'admin-token' });
    await registerKeys(b, alice, bob);
  });
  afterEach(() => b.dispose());

  const publishAs = async (key: typeof alice, body: object, path = '/findings') => {
    const r = await signed(b, 'POST', path, { key, body });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.object;
  };

  it('replaces the old object in one step: the new one carries supersedes, the old one is superseded and out of every live listing', async () => {
    const old = await publishAs(alice, finding('Pool size 10 fixes the timeouts, wrongly'));
    expect(old).toMatchObject({ supersedes: null, superseded_by: null, state: 'live' });
    const r = await signed(b, 'POST', '/findings', { key: alice, body: finding('Pool size 50 fixes the timeouts', { supersedes: old.id }) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.object).toMatchObject({ supersedes: old.id, superseded_by: null, state: 'live' });
    const now = await b.json('GET', `/p/${old.id}`);
    expect(now.status).toBe(200);
    expect(now.body.object).toMatchObject({ state: 'superseded', superseded_by: r.body.object.id, content: 'Pool size 10 fixes the timeouts, wrongly' });
    const listed = (await b.json('GET', '/findings')).body.objects.map((o: { id: string }) => o.id);
    expect(listed).toEqual([r.body.object.id]);
    const found = (await b.json('GET', '/search?q=pool+size+timeouts&mode=lexical')).body.results.map((o: { id: string }) => o.id);
    expect(found).toEqual([r.body.object.id]);
    expect((await b.json('GET', '/topics/supersede-test')).body.topic.count).toBe(1);
    // A superseded object takes no votes and no replies.
    expect((await b.json('POST', `/p/${old.id}/verify`)).status).toBe(404);
    expect((await b.json('POST', `/p/${old.id}/replies`, { body: { content: 'late reply' } })).status).toBe(404);
  });

  it('sends created for the new object and updated for the old one', async () => {
    const old = await publishAs(alice, finding('First version'));
    const res = await b.call('GET', '/events?topic=supersede-test', { headers: { 'last-event-id': '0' } });
    const stream = readSse(res);
    try {
      await stream.waitFor(1);
      const next = await publishAs(alice, finding('Second version', { supersedes: old.id }));
      const events = await stream.waitFor(3);
      expect(events.slice(1).map((e) => [e.event, e.data.object.id, e.data.object.state])).toEqual([
        ['created', next.id, 'live'],
        ['updated', old.id, 'superseded'],
      ]);
    } finally {
      await stream.close();
    }
  });

  it('refuses, each with its problem: unsigned 401, another author 403, unknown 404, superseded or withdrawn 409, another type 400', async () => {
    const mine = await publishAs(alice, finding('Mine'));
    const theirs = await publishAs(bob, finding('Theirs'));
    const unsigned = await b.json('POST', '/findings', { body: finding('Anonymous try', { supersedes: mine.id }) });
    expect([unsigned.status, unsigned.body.type]).toEqual([401, 'http://board.test/problems/unauthorized']);
    const other = await signed(b, 'POST', '/findings', { key: alice, body: finding('Not my place', { supersedes: theirs.id }) });
    expect([other.status, other.body.type]).toEqual([403, 'http://board.test/problems/forbidden']);
    const unknown = await signed(b, 'POST', '/findings', { key: alice, body: finding('Nothing there', { supersedes: UNKNOWN }) });
    expect([unknown.status, unknown.body.type]).toEqual([404, 'http://board.test/problems/not-found']);
    const typed = await signed(b, 'POST', '/requests', { key: alice, body: finding('A request in its place', { supersedes: mine.id }) });
    expect([typed.status, typed.body.errors]).toEqual([400, [{ path: 'supersedes', message: 'names a finding; a request can only supersede a request' }]]);
    const badId = await signed(b, 'POST', '/findings', { key: alice, body: finding('Bad id', { supersedes: 'nope' }) });
    expect([badId.status, badId.body.errors[0].path]).toEqual([400, 'supersedes']);
    const next = await publishAs(alice, finding('Mine, fixed', { supersedes: mine.id }));
    const again = await signed(b, 'POST', '/findings', { key: alice, body: finding('Mine, fixed differently', { supersedes: mine.id }) });
    expect([again.status, again.body.type]).toEqual([409, 'http://board.test/problems/supersede-conflict']);
    expect(again.body.detail).toContain(next.id);
    const gone = await publishAs(alice, finding('To withdraw'));
    expect((await signed(b, 'DELETE', `/p/${gone.id}`, { key: alice })).status).toBe(200);
    const withdrawn = await signed(b, 'POST', '/findings', { key: alice, body: finding('After withdrawal', { supersedes: gone.id }) });
    expect([withdrawn.status, withdrawn.body.type]).toEqual([409, 'http://board.test/problems/supersede-conflict']);
    // None of the refusals left an object behind.
    const live = (await b.json('GET', '/findings')).body.objects.map((o: { content: string }) => o.content);
    expect(live.sort()).toEqual(['Mine, fixed', 'Theirs']);
    expect((await b.json('GET', '/requests')).body.objects).toEqual([]);
  });

  it('answers a repeated supersede with the object it made, and of two different ones racing, applies exactly one', async () => {
    const old = await publishAs(alice, finding('Racing original'));
    const body = finding('Racing fix', { supersedes: old.id });
    const first = await signed(b, 'POST', '/findings', { key: alice, body });
    const retry = await signed(b, 'POST', '/findings', { key: alice, body });
    expect([retry.status, retry.body.deduplicated, retry.body.object.id]).toEqual([200, true, first.body.object.id]);

    const target = await publishAs(alice, finding('Second original'));
    const racing = await Promise.all(
      ['one', 'two', 'three', 'four'].map((n) => signed(b, 'POST', '/findings', { key: alice, body: finding(`Second fix ${n}`, { supersedes: target.id }) })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    const winner = racing.find((r) => r.status === 201)!.body.object;
    expect((await b.json('GET', `/p/${target.id}`)).body.object.superseded_by).toBe(winner.id);
    const live = (await b.json('GET', '/findings')).body.objects.map((o: { content: string }) => o.content);
    expect(live.filter((c: string) => c.startsWith('Second'))).toEqual([winner.content]);
  });

  it('follows a chain: every old page says what superseded it and links the newest version', async () => {
    const a = await publishAs(alice, finding('Version A'), '/status');
    const bee = await publishAs(alice, { content: 'Version B', topics: ['supersede-test'], supersedes: a.id }, '/status');
    const c = await publishAs(alice, { content: 'Version C', topics: ['supersede-test'], supersedes: bee.id }, '/status');
    expect((await b.json('GET', `/p/${bee.id}`)).body.object).toMatchObject({ state: 'superseded', supersedes: a.id, superseded_by: c.id });
    const pageA = await (await b.call('GET', `/p/${a.id}`, { headers: { accept: 'text/html' } })).text();
    expect(pageA).toContain(`Superseded by <a href="/p/${bee.id}">`);
    expect(pageA).toMatch(new RegExp(`the newest version is\\s*<a href="/p/${c.id}"`));
    const pageB = await (await b.call('GET', `/p/${bee.id}`, { headers: { accept: 'text/html' } })).text();
    expect(pageB).toContain(`Superseded by <a href="/p/${c.id}">`);
    expect(pageB).not.toContain('the newest version is');
    expect(pageB).toContain(`Supersedes <a href="/p/${a.id}">`);
    const pageC = await (await b.call('GET', `/p/${c.id}`, { headers: { accept: 'text/html' } })).text();
    expect(pageC).toContain(`Supersedes <a href="/p/${bee.id}">`);
    expect(pageC).not.toContain('Superseded by');
  });

  it('lets the MCP publish tool supersede, refusing as the API does', async () => {
    const old = await publishAs(alice, finding('MCP original'));
    const headers = { host: 'board.test', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    const call = async (key: typeof alice | null, args: object) => {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'publish', arguments: { type: 'finding', topics: ['supersede-test'], ...args } } };
      const r = key ? await signed(b, 'POST', '/mcp', { key, body, headers }) : await b.call('POST', 'http://board.test/mcp', { body, headers }).then(async (res) => ({ status: res.status, body: await parsedBody(res) }));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.result;
    };
    const anonymous = await call(null, { content: 'MCP fix', supersedes: old.id });
    expect([anonymous.isError, anonymous.structuredContent.type]).toEqual([true, 'http://board.test/problems/unauthorized']);
    const byBob = await call(bob, { content: 'MCP fix by Bob', supersedes: old.id });
    expect([byBob.isError, byBob.structuredContent.status]).toEqual([true, 403]);
    expect((await b.json('GET', `/p/${old.id}`)).body.object.state).toBe('live');
    const byAlice = await call(alice, { content: 'MCP fix', supersedes: old.id });
    expect(byAlice.isError).toBeUndefined();
    expect(byAlice.structuredContent.object.supersedes).toBe(old.id);
    expect((await b.json('GET', `/p/${old.id}`)).body.object.superseded_by).toBe(byAlice.structuredContent.object.id);
  });
});

describe('supersede by a key verified for the same domain', () => {
  const first = generateKey();
  const second = generateKey();
  const outsider = generateKey();
  const listed: PrivateJwk[] = [first.privateJwk, second.privateJwk];
  let directory: Running;
  let b: TestBoard;
  beforeAll(async () => {
    directory = await serveFetch((req) =>
      new URL(req.url).pathname === '/.well-known/http-message-signatures-directory'
        ? Response.json({ keys: listed.map(publicJwkOf) }, { headers: { 'content-type': 'application/http-message-signatures-directory+json' } })
        : new Response('not found', { status: 404 }),
    );
    b = await makeTestBoard({ ALLOW_PRIVATE_NETWORK: 'true' });
    await registerKeys(b, second, outsider);
  });
  afterAll(async () => {
    await b.dispose();
    await directory.close();
  });

  it('accepts another key of the domain, and refuses a key that is only signed', async () => {
    const old = await signed(b, 'POST', '/findings', { key: first, agent: directory.origin, body: finding('Domain original') });
    expect(old.body.object.author.trust_level).toBe('domain-verified');
    const stranger = await signed(b, 'POST', '/findings', { key: outsider, body: finding('Stranger fix', { supersedes: old.body.object.id }) });
    expect(stranger.status).toBe(403);
    const plain = await signed(b, 'POST', '/findings', { key: second, body: finding('Same key, no domain', { supersedes: old.body.object.id }) });
    expect(plain.status).toBe(403);
    const byDomain = await signed(b, 'POST', '/findings', { key: second, agent: directory.origin, body: finding('Domain fix', { supersedes: old.body.object.id }) });
    expect(byDomain.status, JSON.stringify(byDomain.body)).toBe(201);
    expect(byDomain.body.object.author.id).toBe(second.keyid);
    expect((await b.json('GET', `/p/${old.body.object.id}`)).body.object.superseded_by).toBe(byDomain.body.object.id);
  });
});
