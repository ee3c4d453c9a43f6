/**
 * The leak suite: every route of the OpenAPI document, asked about a private object and its space
 * by everyone who may not read it (anonymous, a signed key of the commons only, the reader and
 * writer tokens of another space, a revoked token, an expired token). None may see its marker,
 * and each answer about the object or the space must be the answer for an id or a space that
 * never existed, but for the name asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, signRequest } from '../../src/identity/agent-sign.mjs';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { registerKeys, signed } from '../helpers/signed.js';

const MARK = `leak-marker-${Date.now().toString(36)}`;
const UNKNOWN_ID = '01HZZZZZZZZZZZZZZZZZZZZZZZ';
/** The reads that take `space`. */
const SPACE_READS = ['/findings', '/requests', '/search', '/topics', '/topics/{slug}'];

describe('nothing of a space reaches anyone outside it, on any route', () => {
  let b: TestBoard;
  const admin = generateKey();
  const outsider = generateKey();
  let secret: string;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    b = await makeTestBoard({ ADMIN_TOKEN: 'leak-admin-token' });
    await registerKeys(b, admin, outsider);
    for (const slug of ['team-a', 'team-b']) expect((await signed(b, 'POST', '/spaces', { key: admin, body: { slug, name: slug } })).status).toBe(201);
    const token = async (slug: string, role: string, expiresIn?: number) =>
      (await signed(b, 'POST', `/spaces/${slug}/tokens`, { key: admin, body: { name: role, role, ...(expiresIn ? { expires_in: expiresIn } : {}) } })).body as { id: string; token: string };
    const writer = await token('team-a', 'writer');
    const made = await b.json('POST', '/findings', { headers: { authorization: `Bearer ${writer.token}` }, body: { title: `Title ${MARK}`, content: `Content ${MARK}`, topics: [`${MARK}-topic`, 'shared'], space: 'team-a' } });
    secret = made.body.object.id;
    await b.json('POST', `/p/${secret}/replies`, { headers: { authorization: `Bearer ${writer.token}` }, body: { content: `Reply ${MARK}` } });
    await b.json('POST', `/p/${secret}/verify`, { headers: { authorization: `Bearer ${writer.token}` }, body: { note: `Vote ${MARK}` } });
    await b.json('POST', '/findings', { body: { content: 'a public object', topics: ['shared'] } });
    tokens['reader of another space'] = (await token('team-b', 'reader')).token;
    tokens['writer of another space'] = (await token('team-b', 'writer')).token;
    const revoked = await token('team-a', 'reader');
    await signed(b, 'DELETE', `/spaces/team-a/tokens/${revoked.id}`, { key: admin });
    tokens['a revoked token'] = revoked.token;
    tokens['an expired token'] = (await token('team-a', 'reader', 60)).token;
    b.clock.advance(61_000);
  });
  afterAll(() => b?.dispose());

  type Who = { name: string; send: (method: string, path: string, body?: unknown) => Promise<{ status: number; text: string }> };
  /** Status, body and headers as text: some routes answer text or HTML, and headers must not leak either. */
  const asText = async (res: Response) => {
    const headers: string[] = [];
    res.headers.forEach((v, k) => headers.push(`${k}: ${v}`));
    return { status: res.status, text: `${await res.text()}\n${headers.join('\n')}` };
  };
  const plain = (headers: Record<string, string>) => async (method: string, path: string, body?: unknown) =>
    asText(await b.call(method, path, { ...(body === undefined ? {} : { body }), headers }));
  const signedByOutsider = async (method: string, path: string, body?: unknown) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const request = new Request(`http://board.test${path}`, { method, headers: { 'x-forwarded-for': '203.0.113.9', ...(text ? { 'content-type': 'application/json' } : {}) }, ...(text ? { body: text } : {}) });
    const s = await signRequest(request, { privateJwk: outsider.privateJwk, now: b.clock.now() });
    return asText(await b.app.request(`http://board.test${path}`, { method, headers: s.headers, ...(text ? { body: text } : {}) }));
  };
  const callers = (): Who[] => [
    { name: 'anonymous', send: plain({}) },
    { name: 'a signed key of the commons', send: signedByOutsider },
    ...Object.entries(tokens).map(([name, t]) => ({ name, send: plain({ authorization: `Bearer ${t}` }) })),
  ];

  /** Each operation of the OpenAPI document, its path parameters filled as `fill` says. */
  async function operations(): Promise<{ method: string; path: string }[]> {
    const doc = (await b.json('GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    return Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((m) => ['get', 'post', 'put', 'delete'].includes(m))
        .map((method) => ({ method: method.toUpperCase(), path })),
    );
  }
  const fill = (path: string, id: string, space: string) =>
    path
      .replace('{id}', id)
      .replace('{slug}', path.startsWith('/spaces') ? space : path.startsWith('/topics') ? `${MARK}-topic` : 'x')
      .replace('{keyid}', admin.keyid)
      .replace(/\{[a-z_]+\}/g, 'x');

  it('answers every route about the private object and its space as about ones that never existed', async () => {
    const ops = (await operations()).filter((o) => o.path !== '/events' && o.path !== '/mcp');
    expect(ops.length).toBeGreaterThan(30);
    for (const who of callers()) {
      for (const { method, path } of ops) {
        const body = method === 'GET' || method === 'DELETE' ? undefined : { content: `probe ${who.name}`, topics: ['probe'], role: 'reader', name: 'probe', space: 'team-a' };
        const query = method === 'GET' ? '?space=team-a&q=Content' : '';
        const real = await who.send(method, fill(path, secret, 'team-a') + query, body);
        expect(real.text, `${who.name}: ${method} ${path}`).not.toContain(MARK);
        if (path.includes('{id}') || path.startsWith('/spaces/{slug}') || (query && SPACE_READS.includes(path))) {
          const never = await who.send(method, fill(path, UNKNOWN_ID, 'no-such-space') + query.replace('team-a', 'no-such-space'), body && { ...body, space: 'no-such-space' });
          const same = (r: { status: number; text: string }, id: string, space: string) => ({
            status: r.status,
            text: r.text.replaceAll(id, 'ID').replaceAll(space, 'SPACE').replace(/"instance":"[^"]*"/g, '').replace(/\n(x-request-id|etag|ratelimit|content-length)[^\n]*/gi, ''),
          });
          expect(same(real, secret, 'team-a'), `${who.name}: ${method} ${path}`).toEqual(same(never, UNKNOWN_ID, 'no-such-space'));
        }
      }
      const stream = await who.send('GET', '/events?space=team-a');
      expect(stream.status, who.name).toBeGreaterThanOrEqual(400);
      expect(stream.text).not.toContain(MARK);
    }
  });
});
