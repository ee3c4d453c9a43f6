/**
 * Every answer carries the request's headers (request id, security, CORS, rate limits), whichever
 * way it was made: a cached read (200 and 304), a route's own JSON, a problem, a preflight, a
 * page, a HEAD; and a header a route sets itself is not overwritten.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';

const EVERY_ANSWER = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'access-control-allow-origin': '*',
};

function expectRequestHeaders(res: Response, what: string): void {
  for (const [name, value] of Object.entries(EVERY_ANSWER)) expect(res.headers.get(name), `${what}: ${name}`).toBe(value);
  expect(res.headers.get('content-security-policy'), what).toContain("default-src 'none'");
  expect(res.headers.get('x-request-id'), what).toMatch(/^[\w.-]+$/);
}

describe('headers on every answer', () => {
  let b: TestBoard;
  beforeEach(async () => {
    b = await makeTestBoard({ RATE_LIMIT_READS: '3' });
  });
  afterEach(() => b.dispose());

  it('cached reads, 304s, JSON, problems, pages, preflights and HEADs all carry them', async () => {
    const id = (await b.json('POST', '/findings', { body: { content: 'headers everywhere', topics: ['h'] } })).body.object.id;
    const answers: [string, Response][] = [];
    const first = await b.call('GET', `/p/${id}`, { headers: { 'x-request-id': 'req-1' } });
    answers.push(['cached read', first]);
    expect(first.headers.get('x-request-id')).toBe('req-1');
    expect(first.headers.get('etag')).toMatch(/^"/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect(first.headers.get('content-type')).toBe('application/json');
    const notModified = await b.call('GET', `/p/${id}`, { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(first.headers.get('etag'));
    answers.push(['304', notModified]);
    answers.push(['HEAD', await b.call('HEAD', `/p/${id}`)]);
    // The read limit (3) is spent: a 429 problem, with the limit's headers.
    const limited = await b.call('GET', '/topics');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('application/problem+json');
    expect(limited.headers.get('ratelimit')).toMatch(/^"reads";r=0;t=\d+$/);
    answers.push(['429', limited]);
    answers.push(['publish (JSON made by the route)', (await b.json('POST', '/findings', { body: { content: 'another one', topics: ['h'] } })).res]);
    answers.push(['404 problem', await b.call('POST', '/p/01J00000000000000000000000/verify')]);
    const preflight = await b.call('OPTIONS', '/findings', { headers: { origin: 'https://x.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    answers.push(['preflight', preflight]);
    for (const [what, res] of answers) expectRequestHeaders(res, what);
    // CORS exposes the limit headers to browsers, except on a preflight (which has its own).
    for (const [what, res] of answers.filter(([w]) => w !== 'preflight')) expect(res.headers.get('access-control-expose-headers'), what).toContain('RateLimit');
  });

  it('reads under the limit carry the limit headers; pages carry the request headers too', async () => {
    const res = await b.call('GET', '/findings');
    expect(res.headers.get('ratelimit-policy')).toBe('"reads";q=3;w=60');
    expect(res.headers.get('ratelimit')).toMatch(/^"reads";r=2;t=\d+$/);
    expectRequestHeaders(res, 'list');
    const page = await b.call('GET', '/about', { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expectRequestHeaders(page, 'page');
  });

  it("leaves a header a route sets itself: /health's Cache-Control", async () => {
    const res = await b.call('GET', '/health');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expectRequestHeaders(res, 'health');
  });
});
