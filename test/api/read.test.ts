import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ObjectDetailEnvelope, ObjectListEnvelope, TopicEnvelope, TopicListEnvelope } from '../../src/schemas/resources.js';
import { makeTestBoard, OBJECT_FIELDS, type TestBoard } from '../helpers/board.js';
import { expectValid } from '../helpers/schema.js';

let b: TestBoard;
beforeEach(async () => {
  b = await makeTestBoard({ ADMIN_TOKEN: 'sekret-token' });
});
afterEach(async () => b.dispose());

const publish = async (path: string, body: object, from?: string) => {
  const r = await b.json('POST', path, { body, ...(from ? { from } : {}) });
  expect(r.status).toBe(201);
  return r.body.object;
};
const finding = (content: string, topics = ['x'], extra: object = {}) => publish('/findings', { content, topics, ...extra });

describe('GET /findings and /requests', () => {
  it('lists live objects of that type only, newest first', async () => {
    const f1 = await finding('one');
    await publish('/requests', { content: 'q', topics: ['x'] });
    const f2 = await finding('two');
    const r = await b.json('GET', '/findings');
    expect(r.status).toBe(200);
    expectValid(ObjectListEnvelope, r.body);
    expect(r.body.objects.map((o: any) => o.id)).toEqual([f2.id, f1.id]);
    expect(r.body.next_cursor).toBeNull();
    expect(Object.keys(r.body.objects[0]).sort()).toEqual(OBJECT_FIELDS);
    const q = await b.json('GET', '/requests');
    expect(q.body.objects.map((o: any) => o.type)).toEqual(['request']);
  });

  it('pages strictly by cursor: no gaps, no repeats, null at the end', async () => {
    const made: string[] = [];
    for (let i = 0; i < 23; i++) made.push((await finding(`item ${i}`)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: any = await b.json('GET', `/findings?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.body.objects.length).toBeLessThanOrEqual(5);
      seen.push(...r.body.objects.map((o: any) => o.id));
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toEqual([...made].reverse());
  });

  it('has no next page when the last page is exactly full', async () => {
    for (let i = 0; i < 4; i++) await finding(`item ${i}`);
    const first = await b.json('GET', '/findings?limit=2');
    const second = await b.json('GET', `/findings?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.objects).toHaveLength(2);
    expect(second.body.next_cursor).toBeNull();
  });

  it('defaults to 20 per page', async () => {
    for (let i = 0; i < 21; i++) await finding(`item ${i}`);
    const r = await b.json('GET', '/findings');
    expect(r.body.objects).toHaveLength(20);
    expect(r.body.next_cursor).toBe(r.body.objects[19].id);
  });

  it('filters by a normalised topic', async () => {
    const a = await finding('a', ['node-js']);
    await finding('b', ['python']);
    const r = await b.json('GET', '/findings?topic=Node.JS');
    expect(r.body.objects.map((o: any) => o.id)).toEqual([a.id]);
  });

  it.each([
    ['limit=0', [{ path: 'query/limit', message: 'must be at least 1' }]],
    ['limit=101', [{ path: 'query/limit', message: 'must be at most 100' }]],
    ['limit=abc', [{ path: 'query/limit', message: 'must be an integer from 1 to 100' }]],
    ['limit=-1', [{ path: 'query/limit', message: 'must be an integer from 1 to 100' }]],
    ['limit=2.5', [{ path: 'query/limit', message: 'must be an integer from 1 to 100' }]],
    ['cursor=short', [{ path: 'query/cursor', message: 'must be a 26-character ULID' }]],
    ['cursor=01ZZZZZZZZZZZZZZZZZZZZZZZ!', [{ path: 'query/cursor', message: 'must be a 26-character ULID' }]],
    ['topic=a', [{ path: 'query/topic', message: 'must be a topic of 2 to 40 characters' }]],
    [`topic=${'t'.repeat(41)}`, [{ path: 'query/topic', message: 'must be a topic of 2 to 40 characters' }]],
  ])('400 for %s', async (query, errors) => {
    for (const path of ['/findings', '/requests']) {
      const r = await b.json('GET', `${path}?${query}`);
      expect(r.status).toBe(400);
      expect(r.res.headers.get('content-type')).toBe('application/problem+json');
      expect(r.body.errors).toEqual(errors);
    }
  });
});

describe('GET /p/{id} and /p/{id}/replies', () => {
  it('returns the object with its first page of live replies, newest first', async () => {
    const root = await finding('root');
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push((await b.json('POST', `/p/${root.id}/replies`, { body: { content: `r${i}` } })).body.object);
    const r = await b.json('GET', `/p/${root.id}?limit=2`);
    expect(r.status).toBe(200);
    expectValid(ObjectDetailEnvelope, r.body);
    expect(r.body.object.reply_count).toBe(3);
    expect(r.body.replies.objects.map((o: any) => o.id)).toEqual([replies[2].id, replies[1].id]);
    expect(r.body.replies.next_cursor).toBe(replies[1].id);
    const rest = await b.json('GET', `/p/${root.id}/replies?limit=2&cursor=${r.body.replies.next_cursor}`);
    expectValid(ObjectListEnvelope, rest.body);
    expect(rest.body.objects.map((o: any) => o.id)).toEqual([replies[0].id]);
    expect(rest.body.next_cursor).toBeNull();
  });

  it('400 for a malformed id, 404 for an unknown one', async () => {
    for (const path of ['/p/abc', '/p/abc/replies']) {
      const r = await b.json('GET', path);
      expect(r.status).toBe(400);
      expect(r.body.errors).toEqual([{ path: 'path/id', message: 'must be a 26-character ULID' }]);
    }
    for (const path of ['/p/01ZZZZZZZZZZZZZZZZZZZZZZZZ', '/p/01ZZZZZZZZZZZZZZZZZZZZZZZZ/replies']) {
      const r = await b.json('GET', path);
      expect(r.status).toBe(404);
      expect(r.body.type).toBe('http://board.test/problems/not-found');
    }
  });

  it('answers for every state; hidden and withdrawn are blanked and list no replies', async () => {
    const o = await finding('secret content', ['x'], { source_url: 'https://example.org/s', title: 'Secret' });
    await b.json('POST', `/p/${o.id}/replies`, { body: { content: 'a reply' } });
    const hide = await b.json('POST', `/admin/p/${o.id}/hide`, { headers: { authorization: 'Bearer sekret-token' } });
    expect(hide.status).toBe(200);
    const r = await b.json('GET', `/p/${o.id}`);
    expect(r.status).toBe(200);
    expect(r.body.object).toMatchObject({ state: 'hidden', title: '', content: '', source_url: null, topics: ['x'], id: o.id, reply_count: 1 });
    expect(r.body.replies).toEqual({ objects: [], next_cursor: null });
    expect((await b.json('GET', `/p/${o.id}/replies`)).body.objects).toEqual([]);
    expect((await b.json('GET', '/findings')).body.objects).toEqual([]);
    const unhide = await b.json('POST', `/admin/p/${o.id}/unhide`, { headers: { authorization: 'Bearer sekret-token' } });
    expect(unhide.body.object).toMatchObject({ state: 'live', title: 'Secret', content: 'secret content' });
  });
});

describe('states in listings', () => {
  it('expired and disputed objects leave listings, and disputed ones come back', async () => {
    const short = await publish('/status', { content: 'brief', topics: ['x'], expires_in: 10 });
    const f = await finding('contested');
    b.clock.advance(11_000);
    expect((await b.json('GET', `/p/${short.id}`)).body.object.state).toBe('expired');
    await b.json('POST', `/p/${f.id}/contradict`, { from: '198.51.100.1' });
    await b.json('POST', `/p/${f.id}/contradict`, { from: '198.51.100.2' });
    expect((await b.json('GET', `/p/${f.id}`)).body.object.state).toBe('disputed');
    expect((await b.json('GET', '/findings')).body.objects).toEqual([]);
    await b.json('POST', `/p/${f.id}/verify`, { from: '198.51.100.3' });
    await b.json('POST', `/p/${f.id}/verify`, { from: '198.51.100.4' });
    const back = await b.json('GET', '/findings');
    expect(back.body.objects.map((o: any) => o.id)).toEqual([f.id]);
    expect(back.body.objects[0].flags).toContain('contradicted');
  });
});

describe('GET /topics and /topics/{slug}', () => {
  beforeEach(async () => {
    for (let i = 0; i < 6; i++) await finding(`pg ${i}`, ['postgres', 'pooling']);
    for (let i = 0; i < 5; i++) await finding(`redis ${i}`, ['redis']);
    for (let i = 0; i < 4; i++) await finding(`rare ${i}`, ['rare', 'postgres']);
    await publish('/requests', { content: 'a pg question', topics: ['postgres'] });
  });

  it('lists topics with at least 5 live objects, by count then slug', async () => {
    const r = await b.json('GET', '/topics');
    expectValid(TopicListEnvelope, r.body);
    expect(r.body.topics).toEqual([
      { slug: 'postgres', count: 11 },
      { slug: 'pooling', count: 6 },
      { slug: 'redis', count: 5 },
    ]);
    expect((await b.json('GET', '/topics?limit=1')).body.topics).toEqual([{ slug: 'postgres', count: 11 }]);
    for (const bad of ['limit=0', 'limit=201', 'limit=x']) expect((await b.json('GET', `/topics?${bad}`)).status).toBe(400);
  });

  it('shows one topic: live roots newest first, count and related topics', async () => {
    const r = await b.json('GET', '/topics/Postgres');
    expect(r.status).toBe(200);
    expectValid(TopicEnvelope, r.body);
    expect(r.body.topic).toEqual({ slug: 'postgres', count: 11 });
    expect(r.body.objects).toHaveLength(11);
    expect(r.body.objects[0].type).toBe('request');
    expect(r.body.related_topics).toEqual([
      { slug: 'pooling', count: 6 },
      { slug: 'rare', count: 4 },
    ]);
    const onlyFindings = await b.json('GET', '/topics/postgres?type=finding&limit=3');
    expect(onlyFindings.body.objects.map((o: any) => o.type)).toEqual(['finding', 'finding', 'finding']);
    expect(onlyFindings.body.next_cursor).not.toBeNull();
  });

  it('404 for a topic without live objects, 400 for a bad slug or type', async () => {
    expect((await b.json('GET', '/topics/nothing-here')).status).toBe(404);
    const bad = await b.json('GET', '/topics/x');
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ path: 'path/slug', message: 'must be a topic of 2 to 40 characters' }]);
    const badType = await b.json('GET', '/topics/postgres?type=response');
    expect(badType.status).toBe(400);
    expect(badType.body.errors[0].path).toBe('query/type');
  });
});

describe('votes', () => {
  it('verify and contradict: one vote per voter, repeats deduplicated, votes move', async () => {
    const f = await finding('claim');
    const v1 = await b.json('POST', `/p/${f.id}/verify`, { from: '192.0.2.1' });
    expect(v1.status).toBe(200);
    expect(v1.body.object).toMatchObject({ verification_count: 1, contradiction_count: 0 });
    expect(v1.body.object.last_verified_at).toBe(v1.body.object.created_at);
    expect(v1.body.deduplicated).toBeUndefined();
    const again = await b.json('POST', `/p/${f.id}/verify`, { from: '192.0.2.1' });
    expect(again.body).toMatchObject({ deduplicated: true, object: { verification_count: 1 } });
    const moved = await b.json('POST', `/p/${f.id}/contradict`, { from: '192.0.2.1', body: { note: 'wrong on 3.x', evidence_url: 'https://example.org/e' } });
    expect(moved.body.object).toMatchObject({ verification_count: 0, contradiction_count: 1, flags: ['anonymous', 'contradicted'] });
    const other = await b.json('POST', `/p/${f.id}/verify`, { from: '192.0.2.2' });
    expect(other.body.object).toMatchObject({ verification_count: 1, contradiction_count: 1 });
  });

  it('validates the optional body and refuses dead objects', async () => {
    const f = await finding('claim');
    const bad = await b.json('POST', `/p/${f.id}/verify`, { body: { note: 'n'.repeat(501), evidence_url: 'ftp://x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.path)).toEqual(['note', 'evidence_url']);
    expect((await b.json('POST', `/p/${f.id}/verify`, { raw: 'x', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await b.json('POST', '/p/01ZZZZZZZZZZZZZZZZZZZZZZZZ/verify')).status).toBe(404);
    const s = await publish('/status', { content: 'soon gone', topics: ['x'], expires_in: 10 });
    b.clock.advance(10_000);
    expect((await b.json('POST', `/p/${s.id}/verify`)).status).toBe(404);
  });
});

describe('verification keeps knowledge alive', () => {
  const DAY = 86_400_000;
  const expiry = async (id: string) => Date.parse((await b.json('GET', `/p/${id}`)).body.object.expires_at);

  it('a first verification moves a live finding to now + 30 days; repeats, contradictions and flips do not', async () => {
    const f = await finding('still true', ['x'], { expires_in: 86_400 });
    b.clock.advance(DAY / 2);
    const v = await b.json('POST', `/p/${f.id}/verify`, { from: '192.0.2.10' });
    expect(Date.parse(v.body.object.expires_at)).toBe(b.clock.now() + 30 * DAY);
    expect(v.body.meta.search).toContain(`POST http://board.test/p/{id}/verify: your first verification of a live finding`);
    const extended = await expiry(f.id);
    b.clock.advance(DAY);
    // The same voter again, the same voter flipping back, and a contradiction: no move.
    await b.json('POST', `/p/${f.id}/verify`, { from: '192.0.2.10' });
    await b.json('POST', `/p/${f.id}/contradict`, { from: '192.0.2.10' });
    await b.json('POST', `/p/${f.id}/verify`, { from: '192.0.2.10' });
    await b.json('POST', `/p/${f.id}/contradict`, { from: '192.0.2.11' });
    expect(await expiry(f.id)).toBe(extended);
    // Another voter's first verification a day later moves it again.
    const other = await b.json('POST', `/p/${f.id}/verify`, { from: '192.0.2.12' });
    expect(Date.parse(other.body.object.expires_at)).toBe(b.clock.now() + 30 * DAY);
  });

  it('never shortens, stops at created_at + the maximum, and leaves status notes and replies alone', async () => {
    const long = await finding('long-lived', ['x'], { expires_in: 200 * 86_400 });
    await b.json('POST', `/p/${long.id}/verify`, { from: '192.0.2.20' });
    expect(await expiry(long.id)).toBe(Date.parse(long.expires_at));

    const old = await finding('an old finding', ['x'], { expires_in: 360 * 86_400 });
    b.clock.advance(350 * DAY);
    await b.json('POST', `/p/${old.id}/verify`, { from: '192.0.2.21' });
    expect(await expiry(old.id)).toBe(Date.parse(old.created_at) + 365 * DAY);

    const status = await publish('/status', { content: 'deploying', topics: ['x'] });
    await b.json('POST', `/p/${status.id}/verify`, { from: '192.0.2.22' });
    expect(await expiry(status.id)).toBe(Date.parse(status.expires_at));
    const root = await finding('a root', ['x']);
    const reply = (await b.json('POST', `/p/${root.id}/replies`, { body: { content: 'a reply', expires_in: 3600 } })).body.object;
    await b.json('POST', `/p/${reply.id}/verify`, { from: '192.0.2.23' });
    expect(await expiry(reply.id)).toBe(Date.parse(reply.expires_at));
  });

  it('does not extend a disputed finding', async () => {
    const f = await finding('contested', ['x'], { expires_in: 86_400 });
    await b.json('POST', `/p/${f.id}/contradict`, { from: '192.0.2.30' });
    await b.json('POST', `/p/${f.id}/contradict`, { from: '192.0.2.31' });
    await b.json('POST', `/p/${f.id}/contradict`, { from: '192.0.2.32' });
    const v = await b.json('POST', `/p/${f.id}/verify`, { from: '192.0.2.33' });
    expect(v.body.object.state).toBe('disputed');
    expect(await expiry(f.id)).toBe(Date.parse(f.expires_at));
  });
});

describe('moderation and withdrawal', () => {
  it('401 without the admin token, 404 for an unknown object', async () => {
    const f = await finding('x');
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 'Basic sekret-token' }] as Record<string, string>[]) {
      const r = await b.json('POST', `/admin/p/${f.id}/hide`, { headers });
      expect(r.status).toBe(401);
      expect(r.body.type).toBe('http://board.test/problems/unauthorized');
    }
    expect((await b.json('POST', '/admin/p/01ZZZZZZZZZZZZZZZZZZZZZZZZ/hide', { headers: { authorization: 'Bearer sekret-token' } })).status).toBe(404);
  });

  it('moderation is off without ADMIN_TOKEN', async () => {
    const plain = await makeTestBoard();
    try {
      const f = (await plain.json('POST', '/findings', { body: { content: 'x', topics: ['x'] } })).body.object;
      expect((await plain.json('POST', `/admin/p/${f.id}/hide`, { headers: { authorization: 'Bearer anything' } })).status).toBe(401);
    } finally {
      await plain.dispose();
    }
  });

  it('DELETE /p/{id} needs a signed author: 401 for anonymous callers', async () => {
    const f = await finding('mine?');
    const r = await b.json('DELETE', `/p/${f.id}`);
    expect(r.status).toBe(401);
    expect((await b.json('GET', `/p/${f.id}`)).body.object.state).toBe('live');
  });
});
