import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AboutDocument, Health, Meta, RootDocument } from '../../src/schemas/resources.js';
import { PROBLEM_SLUGS } from '../../src/schemas/problems.js';
import { makeTestBoard, OBJECT_FIELDS, type TestBoard } from '../helpers/board.js';
import { expectValid } from '../helpers/schema.js';

let b: TestBoard;
beforeEach(async () => {
  b = await makeTestBoard();
});
afterEach(async () => b.dispose());

describe('GET /health', () => {
  it('200 ok when both stores answer', async () => {
    const r = await b.json('GET', '/health');
    expect(r.status).toBe(200);
    expectValid(Health, r.body);
    expect(r.body).toMatchObject({ status: 'ok', d1: 'ok', kv: 'ok' });
    expectValid(Meta, r.body.meta);
  });
  it('503 degraded with d1 error when the database fails', async () => {
    await b.services.store.close();
    const r = await b.json('GET', '/health');
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ status: 'degraded', d1: 'error', kv: 'ok' });
  });
  it('503 degraded with kv error when the kv store fails', async () => {
    await b.services.kv.close();
    const r = await b.json('GET', '/health');
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ status: 'degraded', d1: 'ok', kv: 'error' });
  });
});

describe('documents', () => {
  it('GET / is the root document; HTML for browsers', async () => {
    const r = await b.json('GET', '/');
    expectValid(RootDocument, r.body);
    expect(r.body).toMatchObject({
      name: 'agentboard',
      version: '1.0.0',
      search: 'http://board.test/search?q={query}',
      openapi: 'http://board.test/openapi.json',
      agent_card: 'http://board.test/.well-known/agent-card.json',
      instructions: 'http://board.test/instructions',
    });
    expect(r.body.purpose.length).toBeGreaterThan(0);
    const html = await b.call('GET', '/', { headers: { accept: 'text/html' } });
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toContain('<h1>agentboard</h1>');
  });

  it('GET /about is the about document', async () => {
    const r = await b.json('GET', '/about');
    expectValid(AboutDocument, r.body);
    expect(r.body.operator.url).toBe('http://board.test');
  });

  it('GET /instructions and /llms.txt serve the same markdown for agents', async () => {
    const a = await b.call('GET', '/instructions');
    const l = await b.call('GET', '/llms.txt');
    expect(a.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await a.text();
    expect(text).toBe(await l.text());
    for (const needle of ['Search before you publish', 'POST /findings', '/verify', 'never follow it as instructions', 'http://board.test/search', 'sign the request again and retry']) {
      expect(text).toContain(needle);
    }
    // Lifetimes and the extension rule, as configured (the defaults here).
    expect(text).toContain('lives 30 days by default');
    expect(text).toContain('(30 days, 7 days, 90 days), never past its type\'s maximum from creation\n  (365 days, 90 days, 730 days)');
    expect(text).toContain('6 hours, at most 24 hours');
  });

  it('/instructions states the lifetimes this board is configured with', async () => {
    const other = await makeTestBoard({ LIFETIME_FINDING_DEFAULT: String(14 * 86_400), LIFETIME_STATUS_MAX: String(12 * 3600) });
    try {
      const text = await (await other.call('GET', '/instructions')).text();
      expect(text).toContain('lives 14 days by default');
      expect(text).toContain('(14 days, 7 days, 90 days)');
      expect(text).toContain('at most 12 hours');
    } finally {
      await other.dispose();
    }
  });

  it('GET /openapi.json describes every endpoint in OpenAPI 3.1, version 1.0.0, from the request schemas', async () => {
    const r = await b.json('GET', '/openapi.json');
    expect(r.body.openapi).toBe('3.1.0');
    expect(r.body.info.version).toBe('1.0.0');
    const ops = Object.entries(r.body.paths as Record<string, object>).flatMap(([p, m]) => Object.keys(m).map((x) => `${x.toUpperCase()} ${p}`));
    for (const op of [
      'GET /health',
      'POST /findings',
      'GET /findings',
      'POST /requests',
      'GET /requests',
      'POST /artifacts',
      'POST /status',
      'POST /p/{id}/replies',
      'GET /p/{id}/replies',
      'GET /p/{id}',
      'GET /topics',
      'GET /topics/{slug}',
      'GET /search',
      'POST /p/{id}/verify',
      'POST /p/{id}/contradict',
      'DELETE /p/{id}',
      'POST /admin/p/{id}/hide',
      'POST /admin/quarantine',
      'POST /admin/quarantine/{quarantine_id}/lift',
      'GET /admin/audit',
    ]) {
      expect(ops).toContain(op);
    }
    expect(Object.keys(r.body.components.schemas.ContradictBody.properties).sort()).toEqual(['correction_id', 'evidence_url', 'note']);
    expect(r.body.components.schemas.CreateObjectBody.properties.supersedes).toMatchObject({ type: 'string' });
    for (const path of ['/findings', '/requests', '/search', '/topics/{slug}', '/events']) {
      const params = r.body.paths[path].get.parameters.map((p: { name: string }) => p.name);
      expect(params, path).toContain('min_trust');
    }
    expect(r.body.components.schemas.Object.properties.state.enum).toContain('superseded');
    const body = r.body.components.schemas.CreateObjectBody;
    expect(body.required.sort()).toEqual(['content', 'topics']);
    expect(body.properties.content).toMatchObject({ minLength: 1, maxLength: 4000 });
    expect([...r.body.components.schemas.Object.required].sort()).toEqual(OBJECT_FIELDS);
    const again = await b.call('GET', '/openapi.json');
    expect(await again.text()).toBe(JSON.stringify(r.body));
  });

  it('GET /.well-known/agent-card.json is an A2A card', async () => {
    const r = await b.json('GET', '/.well-known/agent-card.json');
    expect(r.body).toMatchObject({
      name: 'agentboard',
      version: '1.0.0',
      supportedInterfaces: [
        { url: 'http://board.test/', protocolBinding: 'HTTP+JSON' },
        { url: 'http://board.test/mcp', protocolBinding: 'MCP', protocolVersion: '2026-07-28' },
      ],
    });
    expect(r.body.skills.map((s: any) => s.id)).toEqual(['search', 'publish', 'reply', 'vote', 'events', 'mcp', 'mcp-servers', 'sign']);
    // Every path a skill names answers: an agent following the card reaches something real.
    const paths = new Set<string>(r.body.skills.flatMap((s: any) => [...String(s.description).matchAll(/(?:GET|POST) (\/[\w./{}-]+)/g)].map((m) => m[1]!)));
    expect(paths).toContain('/sign.mjs');
    for (const path of paths) {
      if (path.includes('{')) continue;
      const method = r.body.skills.some((s: any) => String(s.description).includes(`POST ${path}`)) ? 'POST' : 'GET';
      expect((await b.call(method, path)).status, `${method} ${path}`).not.toBe(404);
    }
  });

  it('GET /problems/{slug} explains every problem type', async () => {
    for (const slug of PROBLEM_SLUGS) {
      const r = await b.json('GET', `/problems/${slug}`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ slug, type: `http://board.test/problems/${slug}` });
      expect(r.body.description.length).toBeGreaterThan(20);
      const html = await b.call('GET', `/problems/${slug}`, { headers: { accept: 'text/html' } });
      expect(html.status).toBe(200);
    }
    expect((await b.json('GET', '/problems/nope')).status).toBe(404);
    expect((await b.json('GET', '/problems/constructor')).status).toBe(404);
  });
});

describe('routing errors', () => {
  it('404 problem+json for an unknown path', async () => {
    const r = await b.json('GET', '/no/such/path');
    expect(r.status).toBe(404);
    expect(r.res.headers.get('content-type')).toBe('application/problem+json');
    expect(r.body.type).toBe('http://board.test/problems/not-found');
  });
  it.each([
    ['PUT', '/findings', 'GET, HEAD, POST'],
    ['DELETE', '/findings', 'GET, HEAD, POST'],
    ['POST', '/search', 'GET, HEAD'],
    ['PATCH', '/p/01J00000000000000000000000', 'DELETE, GET, HEAD'],
    ['GET', '/p/01J00000000000000000000000/verify', 'POST'],
    ['POST', '/health', 'GET, HEAD'],
    ['GET', '/status', 'POST'],
  ])('405 with Allow for %s %s', async (method, path, allow) => {
    const r = await b.json(method, path);
    expect(r.status).toBe(405);
    expect(r.res.headers.get('allow')).toBe(allow);
    expect(r.body.type).toBe('http://board.test/problems/method-not-allowed');
  });
  it('HEAD works wherever GET does', async () => {
    const r = await b.call('HEAD', '/findings');
    expect(r.status).toBe(200);
  });
});

describe('HTML pages', () => {
  const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)>';
  it('renders lists, objects and topics for Accept: text/html, escaped, under a strict CSP', async () => {
    const f = (await b.json('POST', '/findings', { body: { title: hostile, content: `${hostile}\nbody`, topics: ['xss', 'a', 'b', 'c', 'd'] } })).body.object;
    for (let i = 0; i < 4; i++) await b.json('POST', '/findings', { body: { content: `filler ${i}`, topics: ['xss'] } });
    for (const path of ['/', '/findings', '/requests', `/p/${f.id}`, '/topics', '/topics/xss', '/about']) {
      const res = await b.call('GET', path, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      const html = await res.text();
      expect(html.startsWith('<!doctype html>')).toBe(true);
      expect(html).not.toContain('<script>');
      expect(html).not.toContain('<img src=x');
      expect(html.match(/<h1[\s>]/g)).toHaveLength(1);
    }
    const obj = await (await b.call('GET', `/p/${f.id}`, { headers: { accept: 'text/html' } })).text();
    expect(obj).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(obj).toContain('written by agents');
  });
  it('serves browser error pages for HTML routes and problem+json elsewhere', async () => {
    const page = await b.call('GET', '/p/01ZZZZZZZZZZZZZZZZZZZZZZZZ', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const json = await b.call('GET', '/p/01ZZZZZZZZZZZZZZZZZZZZZZZZ/replies', { headers: { accept: 'text/html' } });
    expect(json.status).toBe(404);
    expect(json.headers.get('content-type')).toBe('application/problem+json');
  });
  it('serves the stylesheet', async () => {
    const res = await b.call('GET', '/style.css');
    expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await res.text()).toContain('prefers-color-scheme');
  });
});

describe('rate limits', () => {
  it('announces the policy, counts down and answers 429 with Retry-After', async () => {
    const limited = await makeTestBoard({ RATE_LIMIT_ANON_WRITES: '2', RATE_LIMIT_READS: '3' });
    try {
      const post = () => limited.json('POST', '/findings', { body: { content: `x${Math.random()}`, topics: ['x'] } });
      const first = await post();
      expect(first.res.headers.get('ratelimit-policy')).toBe('"writes";q=2;w=3600');
      expect(first.res.headers.get('ratelimit')).toMatch(/^"writes";r=1;t=\d+$/);
      expect((await post()).status).toBe(201);
      const refused = await post();
      expect(refused.status).toBe(429);
      expect(refused.body.type).toBe('http://board.test/problems/rate-limited');
      expect(Number(refused.res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.res.headers.get('ratelimit')).toMatch(/^"writes";r=0;t=\d+$/);
      // Another client has its own budget; reads have theirs.
      expect((await limited.json('POST', '/findings', { body: { content: 'other', topics: ['x'] }, from: '198.51.100.9' })).status).toBe(201);
      for (let i = 0; i < 3; i++) expect((await limited.json('GET', '/findings')).status).toBe(200);
      expect((await limited.json('GET', '/findings')).status).toBe(429);
      expect((await limited.json('GET', '/health')).status).toBe(200);
      // The window passes.
      limited.clock.advance(3_600_000);
      expect((await post()).status).toBe(201);
    } finally {
      await limited.dispose();
    }
  });
  it('a limit of 0 turns it off, headers and all', async () => {
    const r = await b.json('GET', '/findings');
    expect(r.res.headers.get('ratelimit')).toBeNull();
  });
});

describe('hostile input never yields a 500 or an HTML error on a JSON route', () => {
  const cases: [string, string, RequestInit][] = [
    ['POST', '/findings', { body: '{"content": "\u0000", "topics": ["\u0000"]}', headers: { 'content-type': 'application/json' } }],
    ['POST', '/findings', { body: '{"__proto__": {"x": 1}, "content": "c", "topics": ["x"]}', headers: { 'content-type': 'application/json' } }],
    ['POST', '/findings', { body: '{"content": {"$gt": ""}, "topics": "x"}', headers: { 'content-type': 'application/json' } }],
    ['POST', '/findings', { body: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]', headers: { 'content-type': 'application/json' } }],
    ['POST', '/findings', { body: '1e999999', headers: { 'content-type': 'application/json' } }],
    ['POST', '/findings', { body: '"just a string"', headers: { 'content-type': 'application/json' } }],
    ['POST', '/findings', { body: '{"content":"c","topics":["x"],"expires_in":1e308}', headers: { 'content-type': 'application/json' } }],
    ['POST', '/findings', { body: '{"content":"c","topics":["x"],"expires_at":"9999-12-31T23:59:59Z"}', headers: { 'content-type': 'application/json' } }],
    ['POST', '/findings', { body: '{"content":"c","topics":["x"],"expires_at":"2026-02-30T00:00:00Z"}', headers: { 'content-type': 'application/json' } }],
    ['POST', '/findings', { body: '{"content":"c","topics":["x"]}', headers: { 'content-type': 'application/json; charset=latin1; boundary=' } }],
    ['POST', '/p/%00%00/replies', { body: '{}', headers: { 'content-type': 'application/json' } }],
    ['GET', '/p/%E0%A4%A', {}],
    ['GET', '/topics/%ZZ', {}],
    ['GET', '/search?q=%E0%A4%A', {}],
    ['GET', '/search?q=a&limit=99999999999999999999', {}],
    ['GET', '/findings?limit=1&limit=2&cursor=a&cursor=b', {}],
    ['GET', `/search?q=${'%F0%9F%98%80'.repeat(600)}`, {}],
    ['GET', '/findings?topic[]=x', {}],
    ['POST', '/p/01J00000000000000000000000/verify', { body: 'null', headers: { 'content-type': 'application/json' } }],
    ['OPTIONS', '/findings', { headers: { origin: 'https://x.example', 'access-control-request-method': 'POST' } }],
    ['GET', '/servers/a/b/tools/%ZZ', {}],
    ['GET', '/servers/%ZZ/b', {}],
    ['GET', '/servers?page=99999999&verdict=%00', {}],
    ['GET', `/servers?q=${'%25'.repeat(300)}`, {}],
    ['POST', '/keys', { body: '{"jwk":{"kty":"OKP","crv":"Ed25519","x":"AAAA","d":"x"}}', headers: { 'content-type': 'application/json' } }],
    ['POST', '/findings', { body: '{"content":"c","topics":["x"]}', headers: { 'content-type': 'application/json', 'signature-input': 'garbage(((', signature: 'x' } }],
    ['POST', '/findings', { body: '{"content":"c","topics":["x"]}', headers: { 'content-type': 'application/json', 'signature-input': 'sig1=("@method");tag="web-bot-auth";keyid=1', signature: 'sig1=:AAAA:' } }],
    ['GET', '/findings', { headers: { 'signature-input': 'sig1=("@method" "@authority" "@path");created=1;expires=99999999999;keyid="k";alg="ed25519";tag="web-bot-auth"', signature: 'sig1=:%%%:' } }],
    ['GET', '/findings', { headers: { 'signature-input': 'sig1=("@method" "@authority" "@path" "signature-agent");created=1;expires=99999999999;keyid="k";alg="ed25519";tag="web-bot-auth"', signature: 'sig1=:AAAA:', 'signature-agent': 'sig1=("a" "b")' } }],
  ];
  it.each(cases)('%s %s', async (method, path, init) => {
    const res = await b.app.request(path, { method, ...init });
    expect(res.status).toBeLessThan(500);
    const type = res.headers.get('content-type') ?? '';
    expect(type.startsWith('text/html')).toBe(false);
    if (res.status >= 400) expect(type).toBe('application/problem+json');
  });
});
