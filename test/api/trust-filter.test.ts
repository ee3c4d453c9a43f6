/** min_trust: only objects whose author shows at least that trust, on every surface that lists objects. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, publicJwkOf } from '../../src/identity/agent-sign.mjs';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { serveFetch, type Running } from '../helpers/http-server.js';
import { readSse } from '../helpers/sse.js';
import { parsedBody, signed } from '../helpers/signed.js';

describe('min_trust', () => {
  const signer = generateKey();
  const verified = generateKey();
  const reputable = generateKey();
  let directory: Running;
  let b: TestBoard;
  const ids: Record<'anonymous' | 'signed' | 'domainVerified' | 'reputable', string> = { anonymous: '', signed: '', domainVerified: '', reputable: '' };
  const body = (who: string) => ({ content: `Trust filter note from the ${who} author about cache eviction`, topics: ['trust-filter', 'caching'] });

  beforeAll(async () => {
    directory = await serveFetch((req) =>
      new URL(req.url).pathname === '/.well-known/http-message-signatures-directory'
        ? Response.json({ keys: [publicJwkOf(verified.privateJwk)] }, { headers: { 'content-type': 'application/http-message-signatures-directory+json' } })
        : new Response('not found', { status: 404 }),
    );
    b = await makeTestBoard({
      ALLOW_PRIVATE_NETWORK: 'true',
      REPUTABLE_MIN_VERIFICATIONS: '2',
      REPUTABLE_MIN_VOTERS: '2',
      EMBEDDINGS: 'local',
      EMBEDDINGS_AT_PUBLISH_MS: '0',
      SEMANTIC_BUDGET_MS: '5000',
    });
    for (const key of [signer, reputable]) expect((await signed(b, 'POST', '/keys', { key, body: { jwk: publicJwkOf(key.privateJwk) } })).status).toBe(201);
    ids.anonymous = (await b.json('POST', '/findings', { body: body('anonymous') })).body.object.id;
    ids.signed = (await signed(b, 'POST', '/findings', { key: signer, body: body('signed') })).body.object.id;
    ids.domainVerified = (await signed(b, 'POST', '/findings', { key: verified, agent: directory.origin, body: body('domain-verified') })).body.object.id;
    ids.reputable = (await signed(b, 'POST', '/findings', { key: reputable, body: body('reputable') })).body.object.id;
    // Two other voters' verifications make its author reputable.
    for (const from of ['198.51.100.1', '198.51.100.2']) expect((await b.json('POST', `/p/${ids.reputable}/verify`, { from })).status).toBe(200);
    expect((await b.json('GET', `/p/${ids.reputable}`)).body.object.author.trust_level).toBe('reputable');
    expect(await b.worker!.drain()).toBe(4);
  });
  afterAll(async () => {
    await b.dispose();
    await directory.close();
  });

  const expected = {
    none: () => [ids.anonymous, ids.signed, ids.domainVerified, ids.reputable],
    signed: () => [ids.signed, ids.domainVerified, ids.reputable],
    'domain-verified': () => [ids.domainVerified, ids.reputable],
    reputable: () => [ids.reputable],
  };
  const levels = ['signed', 'domain-verified', 'reputable'] as const;
  const sorted = (xs: string[]) => [...xs].sort();
  const idsOf = (objects: { id: string }[]) => sorted(objects.map((o) => o.id));

  it('filters the lists, search in every mode, and a topic page, whose counts are of what it lists', async () => {
    for (const level of levels) {
      const want = sorted(expected[level]());
      expect(idsOf((await b.json('GET', `/findings?min_trust=${level}`)).body.objects), `findings ${level}`).toEqual(want);
      for (const mode of ['lexical', 'hybrid', 'semantic']) {
        const r = await b.json('GET', `/search?q=cache+eviction&mode=${mode}&min_trust=${level}`);
        expect(r.body.degraded, mode).toEqual([]);
        expect(idsOf(r.body.results), `search ${mode} ${level}`).toEqual(want);
      }
      const topic = (await b.json('GET', `/topics/trust-filter?min_trust=${level}`)).body;
      expect(idsOf(topic.objects), `topic ${level}`).toEqual(want);
      expect(topic.topic, `topic ${level}`).toEqual({ slug: 'trust-filter', count: want.length });
      expect(topic.related_topics, `related ${level}`).toEqual([{ slug: 'caching', count: want.length }]);
    }
    expect(idsOf((await b.json('GET', '/findings')).body.objects)).toEqual(sorted(expected.none()));
    const html = await (await b.call('GET', '/findings?min_trust=reputable', { headers: { accept: 'text/html' } })).text();
    expect(html).toContain(ids.reputable);
    expect(html).not.toContain(ids.signed);
  });

  it('refuses an unknown level with 400 naming the field, on every surface', async () => {
    for (const path of ['/findings', '/requests', '/search?q=cache', '/topics/trust-filter', '/events']) {
      const r = await b.json('GET', `${path}${path.includes('?') ? '&' : '?'}min_trust=trusted`);
      expect([r.status, r.body.errors], path).toEqual([400, [{ path: 'query/min_trust', message: 'must be one of signed, domain-verified, reputable' }]]);
    }
  });

  it('streams only events of objects that pass', async () => {
    const res = await b.call('GET', '/events?topic=trust-stream&min_trust=domain-verified');
    const stream = readSse(res);
    try {
      await stream.waitForComment((c) => c === 'agentboard events');
      await b.json('POST', '/findings', { body: { content: 'anonymous stream note', topics: ['trust-stream'] } });
      await signed(b, 'POST', '/findings', { key: signer, body: { content: 'signed stream note', topics: ['trust-stream'] } });
      const passing = await signed(b, 'POST', '/findings', { key: verified, agent: directory.origin, body: { content: 'verified stream note', topics: ['trust-stream'] } });
      // A later event that passes marks the end: nothing between them got through.
      const last = await signed(b, 'POST', '/findings', { key: reputable, body: { content: 'reputable stream note', topics: ['trust-stream'] } });
      await stream.waitFor(2);
      expect(stream.events.map((e) => e.data.object.id)).toEqual([passing.body.object.id, last.body.object.id]);
    } finally {
      await stream.close();
    }
  });

  it('filters the MCP search and recent tools alike', async () => {
    const headers = { host: 'board.test', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    const call = async (name: string, args: object) => {
      const res = await b.call('POST', 'http://board.test/mcp', { headers, body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } } });
      return (await parsedBody(res)).result;
    };
    const search = await call('search', { q: 'cache eviction', min_trust: 'domain-verified' });
    expect(idsOf(search.structuredContent.results)).toEqual(sorted(expected['domain-verified']()));
    const recent = await call('recent', { topic: 'trust-filter', min_trust: 'reputable' });
    expect(idsOf(recent.structuredContent.objects)).toEqual([ids.reputable]);
    const refused = await call('search', { q: 'cache', min_trust: 'nobody' });
    expect(refused.isError).toBe(true);
  });
});
