/**
 * Signed requests end to end: keys made here, signatures from the exported helper, key
 * directories served on loopback, votes, withdrawal, reputation and per-author rate limits.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, publicJwkOf, signRequest, type PrivateJwk } from '../../src/identity/agent-sign.mjs';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { signed, type Key } from '../helpers/signed.js';
import { serveFetch, type Running } from '../helpers/http-server.js';

const finding = (content: string) => ({ content, topics: ['identity'] });

async function register(b: TestBoard, key: Key) {
  const r = await signed(b, 'POST', '/keys', { key, body: { jwk: publicJwkOf(key.privateJwk) } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r;
}

describe('signed requests', () => {
  let b: TestBoard;
  const alice = generateKey();
  const bob = generateKey();
  beforeAll(async () => {
    b = await makeTestBoard();
  });
  afterAll(() => b.dispose());

  describe('POST /keys', () => {
    it('registers a key signed by itself, once', async () => {
      const first = await register(b, alice);
      expect(first.body).toMatchObject({ keyid: alice.keyid, trust_level: 'signed' });
      const again = await signed(b, 'POST', '/keys', { key: alice, body: { jwk: publicJwkOf(alice.privateJwk) } });
      expect(again.status).toBe(200);
      expect(again.body.keyid).toBe(alice.keyid);
    });

    it('refuses an unsigned registration and one signed by another key', async () => {
      const unsigned = await b.json('POST', '/keys', { body: { jwk: publicJwkOf(bob.privateJwk) } });
      expect(unsigned.status).toBe(401);
      expect(unsigned.body.type).toBe('http://board.test/problems/unauthorized');
      const byAlice = await signed(b, 'POST', '/keys', { key: alice, body: { jwk: publicJwkOf(bob.privateJwk) } });
      expect(byAlice.status).toBe(401);
      expect(byAlice.body.detail).toMatch(/registers itself only/);
      expect(await b.services.store.identity.getKey(bob.keyid)).toBeNull();
    });

    it('refuses what is not a public Ed25519 JWK', async () => {
      const r = await signed(b, 'POST', '/keys', { key: alice, body: { jwk: { kty: 'RSA', n: 'x', e: 'AQAB' } } });
      expect(r.status).toBe(400);
      expect(r.body.errors).toEqual([{ path: 'jwk', message: expect.stringMatching(/Ed25519/) }]);
    });
  });

  describe('publishing', () => {
    it('makes the author signed, with the key thumbprint as id', async () => {
      const r = await signed(b, 'POST', '/findings', { key: alice, body: finding('Signed finding one') });
      expect(r.status).toBe(201);
      expect(r.body.object.author).toEqual({ id: alice.keyid, trust_level: 'signed', domain: null });
      expect(r.body.object.flags).not.toContain('anonymous');
    });

    it('answers 401 and stores nothing for an unknown key', async () => {
      const stranger = generateKey();
      const r = await signed(b, 'POST', '/findings', { key: stranger, body: finding('From a stranger') });
      expect(r.status).toBe(401);
      expect(r.body.type).toBe('http://board.test/problems/unknown-key');
      expect(r.res.headers.get('content-type')).toContain('application/problem+json');
      const search = await b.json('GET', '/search?q=stranger&mode=lexical');
      expect(search.body.results).toEqual([]);
    });

    it('answers 401 for a tampered body or path, never serving it as anonymous', async () => {
      const body = await signed(b, 'POST', '/findings', { key: alice, body: finding('Original'), tamper: ({ path }) => ({ path, body: JSON.stringify(finding('Tampered')) }) });
      expect(body.status).toBe(401);
      expect(body.body.type).toBe('http://board.test/problems/signature-invalid');
      const path = await signed(b, 'POST', '/findings', { key: alice, body: finding('Original'), tamper: ({ body: raw }) => ({ path: '/requests', body: raw }) });
      expect(path.status).toBe(401);
      expect(path.body.type).toBe('http://board.test/problems/signature-invalid');
    });

    it('answers 401 for an expired signature or one created in the future', async () => {
      const old = await signed(b, 'POST', '/findings', { key: alice, body: finding('Old'), skew: -10 * 60_000 });
      expect(old.status).toBe(401);
      expect(old.body).toMatchObject({ type: 'http://board.test/problems/signature-expired', detail: expect.stringMatching(/expired/) });
      const future = await signed(b, 'POST', '/findings', { key: alice, body: finding('Future'), skew: 5 * 60_000 });
      expect(future.body).toMatchObject({ type: 'http://board.test/problems/signature-expired', detail: expect.stringMatching(/future/) });
    });

    it('refuses a replayed request: each signature (nonce) is good once', async () => {
      const body = JSON.stringify(finding('Published once, replayed later'));
      const request = new Request('http://board.test/findings', { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' }, body });
      const s = await signRequest(request, { privateJwk: alice.privateJwk, now: b.clock.now() });
      const first = await b.app.request('http://board.test/findings', { method: 'POST', headers: s.headers, body });
      expect(first.status).toBe(201);
      const id = ((await first.json()) as { object: { id: string } }).object.id;
      expect((await signed(b, 'DELETE', `/p/${id}`, { key: alice })).status).toBe(200);
      const replay = await b.app.request('http://board.test/findings', { method: 'POST', headers: s.headers, body });
      expect(replay.status).toBe(401);
      expect(((await replay.json()) as { detail: string }).detail).toMatch(/already used/);
    });

    it('checks signatures on reads too', async () => {
      expect((await signed(b, 'GET', '/findings?limit=1', { key: alice })).status).toBe(200);
      const stale = await signed(b, 'GET', '/findings?limit=1', { key: alice, skew: -10 * 60_000 });
      expect(stale.status).toBe(401);
      expect(stale.body.type).toBe('http://board.test/problems/signature-expired');
    });
  });

  describe('votes and withdrawal', () => {
    it('one vote per author; several voters move an object live → disputed → live; no self-votes', async () => {
      await register(b, bob);
      const carol = generateKey();
      await register(b, carol);
      const id = (await signed(b, 'POST', '/findings', { key: alice, body: finding('Contested claim') })).body.object.id;
      expect((await signed(b, 'POST', `/p/${id}/verify`, { key: alice })).status).toBe(403);
      await b.json('POST', `/p/${id}/contradict`, { from: '198.51.100.1' });
      await b.json('POST', `/p/${id}/contradict`, { from: '198.51.100.2' });
      expect((await b.json('GET', `/p/${id}`)).body.object.state).toBe('disputed');
      const first = await signed(b, 'POST', `/p/${id}/verify`, { key: bob, from: '198.51.100.50' });
      expect(first.body.object.verification_count).toBe(1);
      // The same author from another address is still one voter.
      const again = await signed(b, 'POST', `/p/${id}/verify`, { key: bob, from: '198.51.100.51' });
      expect(again.body).toMatchObject({ deduplicated: true, object: { verification_count: 1 } });
      await signed(b, 'POST', `/p/${id}/verify`, { key: carol });
      expect((await b.json('GET', `/p/${id}`)).body.object).toMatchObject({ state: 'live', verification_count: 2, contradiction_count: 2 });
    });

    it('withdraws only for the signed author', async () => {
      const id = (await signed(b, 'POST', '/findings', { key: alice, body: finding('To withdraw') })).body.object.id;
      const anonymous = await b.json('DELETE', `/p/${id}`);
      expect(anonymous.status).toBe(401);
      const other = await signed(b, 'DELETE', `/p/${id}`, { key: bob });
      expect(other.status).toBe(403);
      const own = await signed(b, 'DELETE', `/p/${id}`, { key: alice });
      expect(own.status).toBe(200);
      expect((await b.json('GET', `/p/${id}`)).body.object.state).toBe('withdrawn');
    });
  });
});

describe('reputable', () => {
  let b: TestBoard;
  beforeAll(async () => {
    b = await makeTestBoard();
  });
  afterAll(() => b.dispose());

  it('is earned with 10 verifications from 5 other voters, kept current as votes arrive, and lost to contradictions', async () => {
    const dana = generateKey();
    await register(b, dana);
    const ids: string[] = [];
    for (const n of [1, 2]) ids.push((await signed(b, 'POST', '/findings', { key: dana, body: finding(`Dana's finding ${n}`) })).body.object.id);
    const trust = async (id: string) => (await b.json('GET', `/p/${id}`)).body.object.author.trust_level;
    for (const [i, voter] of ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4'].entries()) {
      for (const id of ids) await b.json('POST', `/p/${id}/verify`, { from: voter });
      expect(await trust(ids[0]!), `after voter ${i + 1}`).toBe('signed');
    }
    // The fifth voter brings 10 verifications from 5 voters.
    await b.json('POST', `/p/${ids[0]}/verify`, { from: '192.0.2.5' });
    expect(await trust(ids[0]!)).toBe('signed');
    await b.json('POST', `/p/${ids[1]}/verify`, { from: '192.0.2.5' });
    expect(await trust(ids[0]!)).toBe('reputable');
    expect(await trust(ids[1]!)).toBe('reputable');
    const later = await signed(b, 'POST', '/findings', { key: dana, body: finding('Written while reputable') });
    expect(later.body.object.author.trust_level).toBe('reputable');
    expect((await signed(b, 'POST', '/keys', { key: dana, body: { jwk: publicJwkOf(dana.privateJwk) } })).body.trust_level).toBe('reputable');
    // Three contradictions make 3 of 13 votes: over 20%.
    for (const voter of ['192.0.2.6', '192.0.2.7', '192.0.2.8']) await b.json('POST', `/p/${later.body.object.id}/contradict`, { from: voter });
    expect(await trust(ids[0]!)).toBe('signed');
  });
});

describe('domain-verified signatures', () => {
  const erin = generateKey();
  const listed: PrivateJwk[] = [erin.privateJwk];
  let directory: Running;
  let silent: Running;
  let b: TestBoard;
  beforeAll(async () => {
    directory = await serveFetch((req) =>
      new URL(req.url).pathname === '/.well-known/http-message-signatures-directory'
        ? Response.json({ keys: listed.map(publicJwkOf) }, { headers: { 'content-type': 'application/http-message-signatures-directory+json', 'cache-control': 'max-age=60' } })
        : new Response('not found', { status: 404 }),
    );
    silent = await serveFetch(() => new Promise<Response>(() => undefined));
    b = await makeTestBoard({ ALLOW_PRIVATE_NETWORK: 'true', KEY_DIRECTORY_TIMEOUT_MS: '300' });
  });
  afterAll(async () => {
    await b.dispose();
    await Promise.all([directory.close(), silent.close()]);
  });

  it('marks the author domain-verified when the covered Signature-Agent directory lists the key, and caches the directory', async () => {
    const first = await signed(b, 'POST', '/findings', { key: erin, agent: directory.origin, body: finding('From a verified domain') });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.object.author).toEqual({ id: erin.keyid, trust_level: 'domain-verified', domain: '127.0.0.1' });
    await signed(b, 'POST', '/findings', { key: erin, agent: directory.origin, body: finding('Second from the domain') });
    expect(directory.hits.filter((h) => h.includes('http-message-signatures-directory'))).toHaveLength(1);
  });

  it('fetches a directory once for a burst of requests naming it', async () => {
    const burst = await serveFetch(async () => {
      await new Promise((r) => setTimeout(r, 100));
      return Response.json({ keys: [publicJwkOf(erin.privateJwk)] });
    });
    try {
      const results = await Promise.all([1, 2, 3, 4, 5].map((n) => signed(b, 'POST', '/findings', { key: erin, agent: burst.origin, body: finding(`Burst ${n}`) })));
      expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
      expect(burst.hits).toHaveLength(1);
    } finally {
      await burst.close();
    }
  });

  it('answers 401 when the directory does not list the key', async () => {
    const frank = generateKey();
    const r = await signed(b, 'POST', '/findings', { key: frank, agent: directory.origin, body: finding('Not listed') });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ type: 'http://board.test/problems/unknown-key', detail: expect.stringMatching(/does not list/) });
  });

  it('answers 401 when the directory is down or too slow', async () => {
    const gone = await serveFetch(() => new Response('x'));
    await gone.close();
    const down = await signed(b, 'POST', '/findings', { key: erin, agent: gone.origin, body: finding('Directory down') });
    expect(down.status).toBe(401);
    expect(down.body.type).toBe('http://board.test/problems/key-directory-unavailable');
    const slow = await signed(b, 'POST', '/findings', { key: erin, agent: silent.origin, body: finding('Directory slow') });
    expect(slow.status).toBe(401);
    expect(slow.body).toMatchObject({ type: 'http://board.test/problems/key-directory-unavailable', detail: expect.stringMatching(/in time/) });
  });
});

describe('what a key directory can cost the board', () => {
  const erin = generateKey();
  let b: TestBoard;
  let nocache: Running;
  let broken: Running;
  const directoryHits = (r: Running) => r.hits.filter((h) => h.includes('http-message-signatures-directory')).length;
  beforeAll(async () => {
    // A directory that forbids caching, and one that is down (500).
    nocache = await serveFetch(() => Response.json({ keys: [publicJwkOf(erin.privateJwk)] }, { headers: { 'cache-control': 'no-store' } }));
    broken = await serveFetch(() => new Response('down', { status: 500 }));
    b = await makeTestBoard({ ALLOW_PRIVATE_NETWORK: 'true', RATE_LIMIT_ANON_WRITES: '3' });
  });
  afterAll(async () => {
    await b.dispose();
    await Promise.all([nocache.close(), broken.close()]);
  });

  it('caches even a no-store directory for the minimum, and remembers a failing one', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await signed(b, 'GET', '/findings', { key: erin, agent: nocache.origin });
      expect(r.status).toBe(200);
    }
    expect(directoryHits(nocache)).toBe(1);
    for (let i = 0; i < 3; i++) {
      const r = await signed(b, 'GET', '/findings', { key: erin, agent: broken.origin });
      expect(r.status).toBe(401);
      expect(r.body.detail).toMatch(/answered 500/);
    }
    expect(directoryHits(broken)).toBe(1);
    // After the minimum (60 s), each is asked again.
    b.clock.advance(61_000);
    await signed(b, 'GET', '/findings', { key: erin, agent: nocache.origin, from: '198.51.100.2' });
    await signed(b, 'GET', '/findings', { key: erin, agent: broken.origin, from: '198.51.100.2' });
    expect([directoryHits(nocache), directoryHits(broken)]).toEqual([2, 2]);
  });

  it('bills each fetch to the requester: past its write budget, 429 and no fetch', async () => {
    const origins: Running[] = [];
    try {
      for (let i = 0; i < 4; i++) origins.push(await serveFetch(() => Response.json({ keys: [] })));
      const statuses = [];
      for (const o of origins) statuses.push((await signed(b, 'GET', '/findings', { key: erin, agent: o.origin, from: '198.51.100.77' })).status);
      // Three fetches fit the budget of 3 writes (each answers 401: the key is not listed); the fourth is refused unfetched.
      expect(statuses).toEqual([401, 401, 401, 429]);
      expect(origins.map(directoryHits)).toEqual([1, 1, 1, 0]);
    } finally {
      await Promise.all(origins.map((o) => o.close()));
    }
  });

  it('fetches nothing for an expired or malformed signature', async () => {
    const fresh = await serveFetch(() => Response.json({ keys: [publicJwkOf(erin.privateJwk)] }));
    try {
      const expired = await signed(b, 'GET', '/findings', { key: erin, agent: fresh.origin, skew: -3_600_000 });
      expect(expired.body.type).toBe('http://board.test/problems/signature-expired');
      const request = new Request('http://board.test/findings');
      const s = await signRequest(request, { privateJwk: erin.privateJwk, now: b.clock.now(), agent: fresh.origin });
      const headers = new Headers(s.headers);
      headers.set('signature', 'sig1=:AAAA:');
      const malformed = await b.app.request('http://board.test/findings', { headers });
      expect(malformed.status).toBe(401);
      expect(((await malformed.json()) as { detail: string }).detail).toMatch(/64-byte/);
      expect(fresh.hits).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it('a signature that does not match says which @authority the board checked', async () => {
    const r = await signed(b, 'GET', '/findings', { key: erin, agent: nocache.origin, tamper: ({ body }) => ({ path: '/requests', body }) });
    expect(r.status).toBe(401);
    expect(r.body.detail).toContain('"@authority" as "board.test"');
  });
});

describe('key directories on private addresses', () => {
  let b: TestBoard;
  let directory: Running;
  beforeAll(async () => {
    directory = await serveFetch(() => Response.json({ keys: [] }));
    b = await makeTestBoard();
  });
  afterAll(async () => {
    await b.dispose();
    await directory.close();
  });

  it('refuses them when ALLOW_PRIVATE_NETWORK is off, without a request', async () => {
    const key = generateKey();
    const https = directory.origin.replace('http:', 'https:');
    const r = await signed(b, 'POST', '/findings', { key, agent: https, body: finding('Private directory') });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ type: 'http://board.test/problems/key-directory-unavailable', detail: expect.stringMatching(/refused address 127\.0\.0\.1/) });
    const http = await signed(b, 'POST', '/findings', { key, agent: directory.origin, body: finding('Plain http directory') });
    expect(http.status).toBe(401);
    expect(http.body.detail).toMatch(/https/);
    expect(directory.hits).toEqual([]);
  });
});

describe('rate limits per author', () => {
  let b: TestBoard;
  afterEach(() => b.dispose());

  it('limits signed writes per author, apart from the address budget', async () => {
    b = await makeTestBoard({ RATE_LIMIT_SIGNED_WRITES: '2', RATE_LIMIT_ANON_WRITES: '5' });
    const gina = generateKey();
    // Registering is the first signed write.
    await register(b, gina);
    const one = await signed(b, 'POST', '/findings', { key: gina, body: finding('Gina one'), from: '198.51.100.9' });
    expect(one.res.headers.get('ratelimit-policy')).toBe('"signed-writes";q=2;w=3600');
    const two = await signed(b, 'POST', '/findings', { key: gina, body: finding('Gina two'), from: '198.51.100.10' });
    expect(two.status).toBe(429);
    expect(two.res.headers.get('retry-after')).toBeTruthy();
    // The same address, unsigned, still has its own budget.
    expect((await b.json('POST', '/findings', { body: finding('Anonymous from the same address'), from: '198.51.100.9' })).status).toBe(201);
  });
});
