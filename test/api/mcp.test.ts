/**
 * POST /mcp with the official clients over loopback: @modelcontextprotocol/sdk 1.x for the
 * 2025 era (initialize, no session) and @modelcontextprotocol/client 2.x pinned to 2026-07-28
 * (server/discover, no initialize). Every tool with good and bad input, and the HTTP rules.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { generateKey, publicJwkOf, signRequest } from '../../src/identity/agent-sign.mjs';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { freePort, serveFetch, type Running } from '../helpers/http-server.js';
import { connectMcp, type AnyClient } from '../helpers/mcp-client.js';
import { ROOT } from '../helpers/paths.js';

const TOOLS = ['contradict', 'get', 'publish', 'recent', 'reply', 'search', 'topics', 'verify'];

let b: TestBoard;
let server: Running;
let base: string;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  b = await makeTestBoard({ BASE_URL: base, RATE_LIMIT_ANON_WRITES: '12' });
  server = await serveFetch((req) => b.app.fetch(req), '/mcp', port);
});
afterAll(async () => {
  await server?.close();
  await b?.dispose();
});

/** A connected client of the given era, its requests from `from` (X-Forwarded-For). */
const connect = (era: 'legacy' | 'modern', from = '198.51.100.1', fetchFn?: typeof fetch): Promise<AnyClient> => connectMcp(base, era, { 'x-forwarded-for': from }, fetchFn);

describe.each(['legacy', 'modern'] as const)('MCP, %s era', (era) => {
  let client: AnyClient;
  beforeAll(async () => {
    client = await connect(era, era === 'legacy' ? '198.51.100.1' : '198.51.100.2');
  });
  afterAll(() => client?.close());

  it('lists exactly the eight tools with JSON-Schema inputs, and carries the agent instructions', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const publish = tools.find((t) => t.name === 'publish')!;
    expect(publish.inputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['type', 'content', 'topics']) });
    expect(Object.keys(publish.inputSchema.properties).sort()).toEqual(['content', 'expires_in', 'source_url', 'space', 'supersedes', 'title', 'topics', 'type']);
    expect(tools.find((t) => t.name === 'search')!.annotations).toMatchObject({ readOnlyHint: true });
    const inputs = (name: string) => Object.keys(tools.find((t) => t.name === name)!.inputSchema.properties ?? {}).sort();
    expect(inputs('search')).toEqual(['limit', 'min_trust', 'mode', 'q', 'space', 'topic', 'type']);
    expect(inputs('recent')).toEqual(['min_trust', 'space', 'topic', 'type']);
    expect(inputs('topics')).toEqual(['space']);
    expect(inputs('contradict')).toEqual(['correction_id', 'evidence_url', 'id', 'note']);
    expect(inputs('verify')).toEqual(['evidence_url', 'id', 'note']);
    expect(tools.find((t) => t.name === 'search')!.inputSchema.properties!.min_trust).toMatchObject({ enum: ['signed', 'domain-verified', 'reputable'] });
    const instructions = await (await fetch(`${base}/instructions`)).text();
    expect(client.getInstructions()).toBe(instructions);
  });

  it('publishes, reads, searches, replies, votes and lists, in the HTTP API’s shapes', async () => {
    const content = `Connection pool exhaustion under ${era} load: raise max_connections (${Date.now()})`;
    const pub = await client.callTool({ name: 'publish', arguments: { type: 'finding', content, topics: ['postgres', era] } });
    expect(pub.isError).toBeFalsy();
    const id = pub.structuredContent.object.id;
    const http = (await b.json('GET', `/p/${id}`)).body;
    expect(pub.structuredContent.object).toEqual(http.object);
    expect(pub.structuredContent.meta).toMatchObject({ instructions: `${base}/instructions`, notice: http.meta.notice });
    expect(pub.content[0].text).toContain(`${base}/p/${id}`);

    const again = await client.callTool({ name: 'publish', arguments: { type: 'finding', content, topics: ['postgres', era] } });
    expect(again.structuredContent).toMatchObject({ deduplicated: true, object: { id } });

    const got = await client.callTool({ name: 'get', arguments: { id } });
    expect(got.structuredContent.object).toEqual(http.object);
    expect(got.structuredContent.replies).toEqual({ objects: [], next_cursor: null });

    const found = await client.callTool({ name: 'search', arguments: { q: 'connection pool exhaustion', mode: 'lexical', topic: era } });
    expect(found.isError, JSON.stringify(found)).toBeFalsy();
    expect(found.structuredContent.results.map((r: any) => r.id)).toEqual([id]);
    expect(found.structuredContent).toMatchObject({ query: 'connection pool exhaustion', degraded: [] });
    expect(found.structuredContent.results[0]).toMatchObject({ score: 1, matched_by: ['lexical'] });

    const reply = await client.callTool({ name: 'reply', arguments: { parent_id: id, content: 'Seen on 16 as well.' } });
    expect(reply.structuredContent.object).toMatchObject({ type: 'response', parent_id: id, topics: ['postgres', era] });

    const verified = await client.callTool({ name: 'verify', arguments: { id, note: 'reproduced' } });
    expect(verified.structuredContent.object).toMatchObject({ verification_count: 1, reply_count: 1 });
    const contradicted = await client.callTool({ name: 'contradict', arguments: { id } });
    expect(contradicted.structuredContent.object).toMatchObject({ verification_count: 0, contradiction_count: 1 });
    const votes = (await b.json('GET', `/p/${id}/votes`)).body.votes;
    expect(votes).toHaveLength(1);

    const recent = await client.callTool({ name: 'recent', arguments: { topic: era } });
    expect(recent.structuredContent.objects.map((o: any) => o.id)).toEqual([id]);
    const requests = await client.callTool({ name: 'recent', arguments: { type: 'request', topic: era } });
    expect(requests.structuredContent.objects).toEqual([]);
    const topics = await client.callTool({ name: 'topics', arguments: {} });
    expect(topics.structuredContent.topics).toEqual((await b.json('GET', '/topics')).body.topics);
  });

  it('answers bad input with isError and the field named, never a protocol error', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['publish', { type: 'finding', content: '', topics: ['x'] }, /content/],
      ['publish', { type: 'status', title: 'no titles on status', content: 'deploying', topics: ['deploy'] }, /title: is not a known field/],
      ['publish', { type: 'artifact', content: 'a tool', topics: ['tools'] }, /source_url/],
      ['publish', { type: 'finding', content: 'x', topics: ['x'], expires_in: 'soon' }, /expires_in/],
      ['search', { q: 'x', limit: 0 }, /limit/],
      ['search', { q: '' }, /q/],
      ['get', { id: 'not-an-id' }, /id: /],
      ['get', { id: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' }, /No object/],
      ['reply', { parent_id: 'nope', content: 'x' }, /parent_id/],
      ['verify', { id: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' }, /No object/],
      ['contradict', { id: '01ZZZZZZZZZZZZZZZZZZZZZZZZ', evidence_url: 'ftp://x' }, /evidence_url/],
      ['recent', { topic: 'x' }, /topic: must be a topic of 2 to/],
    ];
    for (const [name, args, message] of cases) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(r.content[0].text, `${name} ${JSON.stringify(args)}`).toMatch(message);
    }
    const refused = await client.callTool({ name: 'get', arguments: { id: 'not-an-id' } });
    expect(refused.structuredContent).toMatchObject({ type: `${base}/problems/validation-error`, status: 400, errors: [{ path: 'id' }] });
  });
});

describe('MCP, the HTTP rules', () => {
  const post = (headers: Record<string, string>, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list' }) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers },
      body: JSON.stringify(body),
    });

  it('serves 2025-06-18 without a session, and answers GET and DELETE with 405', async () => {
    const init = await post({}, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    const text = await init.text();
    expect(text).toContain('"protocolVersion":"2025-06-18"');
    const list = await post({});
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('"name":"publish"');
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(`${base}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
      expect(r.headers.get('content-type')).toBe('application/problem+json');
    }
  });

  it('refuses a body that is not JSON, not declared JSON or too large with the board’s problem documents', async () => {
    const send = (body: string, type = 'application/json') =>
      fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': type, accept: 'application/json, text/event-stream' }, body });
    for (const [r, status, slug] of [
      [await send('{not json'), 400, 'malformed-json'],
      [await send('{}', 'text/plain'), 415, 'unsupported-media-type'],
      [await send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', pad: 'x'.repeat(40_000) })), 413, 'payload-too-large'],
    ] as const) {
      expect(r.status).toBe(status);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expect(((await r.json()) as any).type).toBe(`${base}/problems/${slug}`);
    }
  });

  it('refuses a foreign Origin and a foreign Host with 403 problem documents', async () => {
    const foreign = await post({ origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('content-type')).toBe('application/problem+json');
    expect(await foreign.json()).toMatchObject({ status: 403, detail: expect.stringContaining('https://evil.example') });
    expect((await post({ origin: base })).status).toBe(200);
    // A rebinding page's request reaches the board under the attacker's host name.
    const rebound = await b.call('POST', 'http://rebound.example/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { accept: 'application/json, text/event-stream' } });
    expect(rebound.status).toBe(403);
  });

  it('charges writes against the same limit as HTTP: a publish over it is refused in the result', async () => {
    const client = await connect('modern', '198.51.100.77');
    try {
      const statuses: boolean[] = [];
      for (let i = 0; i < 13; i++) {
        const r = await client.callTool({ name: 'publish', arguments: { type: 'status', content: `step ${i}`, topics: ['limits'] } });
        statuses.push(Boolean(r.isError));
        if (r.isError) expect(r.structuredContent).toMatchObject({ status: 429, type: `${base}/problems/rate-limited` });
      }
      expect(statuses).toEqual([...Array(12).fill(false), true]);
      // Reads still answer.
      expect((await client.callTool({ name: 'topics', arguments: {} })).isError).toBeFalsy();
      const http = await b.call('POST', `${base}/status`, { body: { content: 'one more', topics: ['limits'] }, from: '198.51.100.77' });
      expect(http.status).toBe(429);
    } finally {
      await client.close();
    }
  });

  it('one anonymous vote per client address; a signed request votes and publishes as its author', async () => {
    const target = (await b.json('POST', `${base}/findings`, { body: { content: 'vote on me over MCP', topics: ['votes'] } })).body.object;
    const one = await connect('legacy', '198.51.100.50');
    const same = await connect('modern', '198.51.100.50');
    const other = await connect('modern', '198.51.100.51');
    try {
      expect((await one.callTool({ name: 'verify', arguments: { id: target.id } })).structuredContent.object.verification_count).toBe(1);
      expect((await same.callTool({ name: 'verify', arguments: { id: target.id } })).structuredContent).toMatchObject({ deduplicated: true, object: { verification_count: 1 } });
      expect((await other.callTool({ name: 'verify', arguments: { id: target.id } })).structuredContent.object.verification_count).toBe(2);
    } finally {
      await Promise.all([one.close(), same.close(), other.close()]);
    }

    const key = generateKey();
    const signedFetch = (async (url: string | URL, init?: RequestInit) => fetch(await signRequest(new Request(url, init), { privateJwk: key.privateJwk, now: b.clock.now() }))) as typeof fetch;
    const keys = await signedFetch(`${base}/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jwk: publicJwkOf(key.privateJwk) }) });
    expect(keys.status).toBe(201);
    const signed = await connect('modern', '198.51.100.60', signedFetch);
    try {
      const r = await signed.callTool({ name: 'publish', arguments: { type: 'finding', content: 'signed over MCP', topics: ['identity'] } });
      expect(r.structuredContent.object.author).toEqual({ id: key.keyid, trust_level: 'signed', domain: null });
      const own = await signed.callTool({ name: 'verify', arguments: { id: r.structuredContent.object.id } });
      expect(own).toMatchObject({ isError: true, structuredContent: { status: 403 } });
    } finally {
      await signed.close();
    }
  });
});

describe('the README’s client configurations', () => {
  it('are JSON entries naming this endpoint, and a client reaches the board through the URL they give', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## The board over MCP'), readme.indexOf('## Signed requests'));
    // The table's last column: each client's entry, as inline code.
    const configs = [...section.matchAll(/\| `(\{.*\})` \|$/gm)].map((m) => JSON.parse(m[1]!));
    expect(configs).toHaveLength(3);
    const urls = configs.map((c) => (c.mcpServers ?? c.servers).agentboard.url as string);
    expect(section).toContain('claude mcp add --transport http agentboard https://board.example/mcp');
    for (const url of new Set(urls)) {
      expect(url).toBe('https://board.example/mcp');
      const client = new ModernClient({ name: 'readme', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new ModernTransport(new URL(url.replace('https://board.example', base))));
      expect((await client.listTools()).tools).toHaveLength(8);
      await client.close();
    }
  });
});
