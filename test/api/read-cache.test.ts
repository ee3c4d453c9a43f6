/**
 * The read cache (service/read-cache.ts) behind GET /p/{id}, /p/{id}/replies, /findings and
 * /requests: validators, and answers that stay exact through writes and through time alone.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';

const DAY = 86_400_000;
let b: TestBoard;
beforeEach(async () => {
  b = await makeTestBoard({ ADMIN_TOKEN: 'sekret-token' });
});
afterEach(async () => b.dispose());

const publish = async (path: string, body: object) => {
  const r = await b.json('POST', path, { body });
  expect(r.status).toBe(201);
  return r.body.object;
};

describe('validators', () => {
  it('answers an ETag and no-cache; If-None-Match naming it gets 304 without a body', async () => {
    const o = await publish('/findings', { content: 'validated answer', topics: ['x'] });
    const first = await b.call('GET', `/p/${o.id}`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const again = await b.call('GET', `/p/${o.id}`, { headers: { 'if-none-match': `W/${etag}, "other"` } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect((await b.call('GET', `/p/${o.id}`, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('a write changes the answer and its ETag at once', async () => {
    const o = await publish('/findings', { content: 'about to be verified', topics: ['x'] });
    const before = await b.call('GET', `/p/${o.id}`);
    const list = await b.call('GET', '/findings');
    expect((await b.json('POST', `/p/${o.id}/verify`, {})).status).toBe(200);
    const after = await b.json('GET', `/p/${o.id}`);
    expect(after.body.object.verification_count).toBe(1);
    expect(after.res.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect((await b.call('GET', '/findings', { headers: { 'if-none-match': list.headers.get('etag')! } })).status).toBe(200);
    await publish(`/p/${o.id}/replies`, { content: 'a reply' });
    expect((await b.json('GET', `/p/${o.id}`)).body.object.reply_count).toBe(1);
    expect((await b.json('GET', `/p/${o.id}/replies`)).body.objects).toHaveLength(1);
  });

  it('hiding through the admin route drops the object from cached listings', async () => {
    const o = await publish('/findings', { content: 'to be hidden', topics: ['x'] });
    expect((await b.json('GET', '/findings')).body.objects).toHaveLength(1);
    const hide = await b.json('POST', `/admin/p/${o.id}/hide`, { headers: { authorization: 'Bearer sekret-token' } });
    expect(hide.status).toBe(200);
    expect((await b.json('GET', '/findings')).body.objects).toHaveLength(0);
    expect((await b.json('GET', `/p/${o.id}`)).body.object.state).toBe('hidden');
  });
});

describe('time alone', () => {
  it('an object shown becomes expiring, then expired, exactly when its times pass', async () => {
    const o = await publish('/findings', { content: 'short lived', topics: ['x'], expires_in: 1000 });
    const read = async () => (await b.json('GET', `/p/${o.id}`)).body.object;
    expect(await read()).toMatchObject({ state: 'live', flags: ['anonymous'] });
    await read();
    // EXPIRING_FRACTION 0.1 of 1,000 s: expiring strictly after 900 s.
    b.clock.advance(900_000);
    expect((await read()).flags).toEqual(['anonymous']);
    b.clock.advance(1);
    expect((await read()).flags).toEqual(['anonymous', 'expiring']);
    expect((await b.json('GET', '/findings')).body.objects).toHaveLength(1);
    b.clock.advance(99_999);
    expect((await read()).state).toBe('expired');
    expect((await b.json('GET', '/findings')).body.objects).toHaveLength(0);
  });

  it("a reply's expiry moves its parent's reply count and the next page of a listing", async () => {
    const parent = await publish('/findings', { content: 'long lived parent', topics: ['x'], expires_in: 30 * 86_400 });
    await publish(`/p/${parent.id}/replies`, { content: 'short reply', expires_in: 60 });
    const older = await publish('/findings', { content: 'older, short lived', topics: ['x'], expires_in: 60 });
    const newest = await publish('/findings', { content: 'newest', topics: ['x'] });
    const page = await b.json('GET', '/findings?limit=2');
    expect(page.body.objects.map((x: any) => x.id)).toEqual([newest.id, older.id]);
    expect((await b.json('GET', `/p/${parent.id}`)).body.object.reply_count).toBe(1);
    b.clock.advance(60_000);
    expect((await b.json('GET', `/p/${parent.id}`)).body.object.reply_count).toBe(0);
    expect((await b.json('GET', '/findings?limit=2')).body.objects.map((x: any) => x.id)).toEqual([newest.id, parent.id]);
    b.clock.advance(DAY);
    expect((await b.json('GET', '/findings?limit=2')).body.objects).toHaveLength(2);
  });
});

describe("search's topic counts (cached by the set of topics)", () => {
  const related = async () => {
    const r = await b.json('GET', '/search?q=cache&mode=lexical');
    expect(r.status).toBe(200);
    return Object.fromEntries(r.body.related_topics.map((t: { slug: string; count: number }) => [t.slug, t.count]));
  };

  it('move with a publish, a hide and an expiry, as the topics listing counts them', async () => {
    await publish('/findings', { content: 'cache warmed at start', topics: ['warm', 'shared'] });
    const brief = await publish('/findings', { content: 'another cache note', topics: ['shared'], expires_in: 60 });
    expect(await related()).toEqual({ warm: 1, shared: 2 });
    expect(await related()).toEqual({ warm: 1, shared: 2 });
    const third = await publish('/findings', { content: 'unrelated words only', topics: ['shared'] });
    expect(await related()).toEqual({ warm: 1, shared: 3 });
    expect((await b.json('POST', `/admin/p/${third.id}/hide`, { headers: { authorization: 'Bearer sekret-token' } })).status).toBe(200);
    expect(await related()).toEqual({ warm: 1, shared: 2 });
    b.clock.advance(60_000);
    expect(await related()).toEqual({ warm: 1, shared: 1 });
    expect((await b.json('GET', `/p/${brief.id}`)).body.object.state).toBe('expired');
    expect((await b.json('GET', '/topics/shared')).body.topic).toMatchObject({ slug: 'shared', count: 1 });
  });
});

// A search's legs are kept from its second asking on (src/search/recent-keys.ts): each test asks
// at least twice before the change it checks, so that the change meets a kept leg.
describe("search's lexical candidates (cached by query)", () => {
  const ids = async (q: string, mode = 'lexical') => {
    const r = await b.json('GET', `/search?q=${encodeURIComponent(q)}&mode=${mode}`);
    expect(r.status).toBe(200);
    return r.body.results.map((x: { id: string }) => x.id);
  };

  it('a publish joins a repeated search at once, in either mode', async () => {
    const first = await publish('/findings', { content: 'gossamer lattice one', topics: ['x'] });
    for (const mode of ['lexical', 'hybrid']) {
      expect(await ids('gossamer lattice', mode)).toEqual([first.id]);
      expect(await ids('gossamer lattice', mode)).toEqual([first.id]);
    }
    const second = await publish('/findings', { content: 'gossamer lattice two', topics: ['x'] });
    for (const mode of ['lexical', 'hybrid']) expect((await ids('gossamer lattice', mode)).sort()).toEqual([first.id, second.id].sort());
  });

  it('a vote reorders a repeated search: ranking reads the votes of the moment', async () => {
    const older = await publish('/findings', { content: 'quokka ledger note', topics: ['x'] });
    const newer = await publish('/findings', { content: 'quokka ledger memo', topics: ['x'] });
    // Equal relevance and age (the test clock stands still): the later id ranks first.
    expect(await ids('quokka ledger')).toEqual([newer.id, older.id]);
    expect(await ids('quokka ledger')).toEqual([newer.id, older.id]);
    expect((await b.json('POST', `/p/${older.id}/verify`, {})).status).toBe(200);
    expect(await ids('quokka ledger')).toEqual([older.id, newer.id]);
  });

  it("a repeated search shows each object as it is now: the expiring flag, votes, replies, a reply's expiry", async () => {
    const o = await publish('/findings', { content: 'wombat harbor note', topics: ['x'], expires_in: 1000 });
    const shown = async () => (await b.json('GET', '/search?q=wombat%20harbor&mode=lexical')).body.results[0];
    expect(await shown()).toMatchObject({ id: o.id, verification_count: 0, reply_count: 0, flags: ['anonymous'] });
    expect(await shown()).toMatchObject({ id: o.id, verification_count: 0, reply_count: 0, flags: ['anonymous'] });
    // EXPIRING_FRACTION 0.1 of 1,000 s: expiring strictly after 900 s.
    b.clock.advance(900_001);
    expect((await shown()).flags).toEqual(['anonymous', 'expiring']);
    expect((await b.json('POST', `/p/${o.id}/verify`, {})).status).toBe(200);
    expect(await shown()).toMatchObject({ verification_count: 1 });
    await publish(`/p/${o.id}/replies`, { content: 'a short reply', expires_in: 60 });
    expect(await shown()).toMatchObject({ reply_count: 1 });
    b.clock.advance(60_000);
    expect(await shown()).toMatchObject({ id: o.id, reply_count: 0 });
  });

  it('expiry and hiding drop a hit from a repeated search', async () => {
    const brief = await publish('/findings', { content: 'marmot cipher brief', topics: ['x'], expires_in: 60 });
    const kept = await publish('/findings', { content: 'marmot cipher kept', topics: ['x'] });
    const hidden = await publish('/findings', { content: 'marmot cipher hidden', topics: ['x'] });
    expect((await ids('marmot cipher')).sort()).toEqual([brief.id, kept.id, hidden.id].sort());
    expect((await ids('marmot cipher')).sort()).toEqual([brief.id, kept.id, hidden.id].sort());
    expect((await b.json('POST', `/admin/p/${hidden.id}/hide`, { headers: { authorization: 'Bearer sekret-token' } })).status).toBe(200);
    expect((await ids('marmot cipher')).sort()).toEqual([brief.id, kept.id].sort());
    b.clock.advance(60_000);
    expect(await ids('marmot cipher')).toEqual([kept.id]);
  });

  it('freshness is weighed at each search, not when the candidates were found', async () => {
    const old = await publish('/findings', { content: 'narwhal quorum quorum quorum', topics: ['x'], expires_in: 90 * 86_400 });
    b.clock.advance(30 * DAY);
    const fresh = await publish('/findings', { content: 'narwhal quorum', topics: ['x'], expires_in: 90 * 86_400 });
    const scores = async () => Object.fromEntries((await b.json('GET', '/search?q=narwhal%20quorum&mode=lexical')).body.results.map((x: { id: string; score: number }) => [x.id, x.score]));
    const before = await scores();
    expect(await scores()).toEqual(before);
    b.clock.advance(DAY);
    const after = await scores();
    // Relative to the top result: the older object's share moves as both age.
    expect(Object.keys(after).sort()).toEqual([old.id, fresh.id].sort());
    expect(after).not.toEqual(before);
  });
});

describe('search candidates cut at the leg limit (SEARCH_CANDIDATES=10)', () => {
  it('when a kept candidate expires, the next is found: the candidates are looked for again', async () => {
    await b.dispose();
    b = await makeTestBoard({ SEARCH_CANDIDATES: '10' });
    const brief = await publish('/findings', { title: 'okapi tundra', content: 'okapi tundra in the title ranks first', topics: ['x'], expires_in: 60 });
    for (let i = 0; i < 10; i++) await publish('/findings', { content: `okapi tundra only in the content, number ${i}`, topics: ['x'] });
    const page = async () => (await b.json('GET', '/search?q=okapi%20tundra&mode=lexical&limit=10')).body.results.map((x: { id: string }) => x.id);
    const before = await page();
    expect(before).toHaveLength(10);
    expect(before[0]).toBe(brief.id);
    expect(await page()).toEqual(before);
    b.clock.advance(60_000);
    const after = await page();
    expect(after).toHaveLength(10);
    expect(after).not.toContain(brief.id);
  });
});
