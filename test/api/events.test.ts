/**
 * GET /events: filters, replay with Last-Event-ID, hidden content, resets, stream limits and
 * heartbeats, on one board in process (the cross-instance case is test/e2e/instances.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { readSse, type SseReader } from '../helpers/sse.js';

let b: TestBoard;
const readers: SseReader[] = [];
beforeEach(async () => {
  b = await makeTestBoard({ ADMIN_TOKEN: 'sekret-token', EVENTS_HEARTBEAT_MS: '100', EVENTS_MAX_STREAMS_PER_CLIENT: '3' });
});
afterEach(async () => {
  await Promise.all(readers.splice(0).map((r) => r.close()));
  await b.dispose();
});

async function subscribe(query = '', headers: Record<string, string> = {}, from = '203.0.113.50'): Promise<SseReader> {
  const res = await b.call('GET', `/events${query}`, { headers, from });
  expect(res.status, await (res.status === 200 ? Promise.resolve('') : res.clone().text())).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const r = readSse(res);
  readers.push(r);
  await r.waitForComment((c) => c === 'agentboard events');
  return r;
}
const publish = async (path: string, body: object) => (await b.json('POST', path, { body })).body.object;

describe('GET /events', () => {
  it('opens with a comment and a retry hint, then sends created and updated events with increasing ids', async () => {
    const s = await subscribe();
    expect(s.retry).toBe(3000);
    const f = await publish('/findings', { content: 'a finding to follow', topics: ['events'] });
    await s.waitFor(1);
    await b.json('POST', `/p/${f.id}/verify`, { from: '192.0.2.1' });
    const [created, updated] = await s.waitFor(2);
    expect(created).toMatchObject({ event: 'created', data: { object: { id: f.id, verification_count: 0 } } });
    expect(updated).toMatchObject({ event: 'updated', data: { object: { id: f.id, verification_count: 1 } } });
    expect(Number(updated!.id)).toBeGreaterThan(Number(created!.id));
    // The object exactly as GET /p/{id} shows it (at the time of the last event).
    expect(updated!.data.object).toEqual((await b.json('GET', `/p/${f.id}`)).body.object);
  });

  it('filters by topic, thread and type, each repeatable', async () => {
    const root = await publish('/findings', { content: 'root of a thread', topics: ['alpha'] });
    const byTopic = await subscribe('?topic=beta&topic=gamma');
    const byThread = await subscribe(`?thread=${root.id}`);
    const byType = await subscribe('?type=request,status');
    const other = await publish('/findings', { content: 'not in the thread', topics: ['beta'] });
    const reply = (await b.json('POST', `/p/${root.id}/replies`, { body: { content: 'in the thread' } })).body.object;
    const req = await publish('/requests', { content: 'a question', topics: ['gamma'] });
    await b.json('POST', `/p/${root.id}/contradict`, { from: '192.0.2.2' });
    expect((await byTopic.waitFor(2)).map((e) => e.data.object.id)).toEqual([other.id, req.id]);
    expect((await byThread.waitFor(2)).map((e) => [e.event, e.data.object.id])).toEqual([
      ['created', reply.id],
      ['updated', root.id],
    ]);
    expect((await byType.waitFor(1)).map((e) => e.data.object.id)).toEqual([req.id]);
    await new Promise((r) => setTimeout(r, 100));
    expect([byTopic.events.length, byThread.events.length, byType.events.length]).toEqual([2, 2, 1]);
  });

  it('replays what a reconnecting client missed, in order and once, then goes on live', async () => {
    const first = await subscribe('?topic=replay');
    const a = await publish('/findings', { content: 'before the drop', topics: ['replay'] });
    const [seen] = await first.waitFor(1);
    await first.close();
    const missed1 = await publish('/findings', { content: 'missed one', topics: ['replay'] });
    await publish('/findings', { content: 'another topic', topics: ['elsewhere'] });
    const missed2 = await publish('/requests', { content: 'missed two', topics: ['replay'] });
    const again = await subscribe('?topic=replay', { 'last-event-id': seen!.id! });
    const live = await publish('/findings', { content: 'after the reconnect', topics: ['replay'] });
    const events = await again.waitFor(3);
    expect(events.map((e) => e.data.object.id)).toEqual([missed1.id, missed2.id, live.id]);
    expect(a.id).toBe(seen!.data.object.id);
    // The query parameter works as the header does.
    const viaQuery = await subscribe(`?topic=replay&last_event_id=${seen!.id}`);
    expect((await viaQuery.waitFor(3)).map((e) => e.data.object.id)).toEqual([missed1.id, missed2.id, live.id]);
  });

  it('never carries the words of hidden or withdrawn objects, replays included', async () => {
    const s = await subscribe('?topic=secret');
    const f = await publish('/findings', { content: 'the secret text', topics: ['secret'] });
    const [created] = await s.waitFor(1);
    expect(created!.data.object.content).toBe('the secret text');
    await b.json('POST', `/admin/p/${f.id}/hide`, { headers: { authorization: 'Bearer sekret-token' } });
    const [, hidden] = await s.waitFor(2);
    expect(hidden).toMatchObject({ event: 'updated', data: { object: { state: 'hidden', content: '', title: '' } } });
    // Replaying from before the publish: the created event now carries no words either.
    const replay = await subscribe('?topic=secret', { 'last-event-id': String(Number(created!.id) - 1) });
    const events = await replay.waitFor(2);
    expect(events.map((e) => [e.event, e.data.object.content])).toEqual([
      ['created', ''],
      ['updated', ''],
    ]);
    expect(JSON.stringify(events)).not.toContain('the secret text');
  });

  it('tells a client whose Last-Event-ID is past what is kept to list again', async () => {
    for (let i = 0; i < 3; i++) await publish('/findings', { content: `old ${i}`, topics: ['prune'] });
    b.clock.advance(2 * 86_400_000);
    const last = await publish('/findings', { content: 'new', topics: ['prune'] });
    expect(await b.services.store.events.prune(b.clock.now() - 86_400_000, 1)).toBe(3);
    const s = await subscribe('', { 'last-event-id': '1' });
    const [reset] = await s.waitFor(1);
    expect(reset).toMatchObject({ event: 'reset', data: { relist: { findings: 'http://board.test/findings' } } });
    expect(Number(reset!.id)).toBeGreaterThanOrEqual(4);
    const next = await publish('/findings', { content: 'after the reset', topics: ['prune'] });
    expect((await s.waitFor(2))[1]!.data.object.id).toBe(next.id);
    expect(last.id).not.toBe(next.id);
    // An id this board never gave is a reset too.
    const future = await subscribe('', { 'last-event-id': '999999' });
    expect((await future.waitFor(1))[0]!.event).toBe('reset');
  });

  it('reads nothing of the log while nobody listens, and a later subscriber gets only what comes after it', async () => {
    await b.services.events.start();
    const bounds = vi.spyOn(b.services.store.events, 'bounds');
    const after = vi.spyOn(b.services.store.events, 'after');
    for (let i = 0; i < 3; i++) await publish('/findings', { content: `published to nobody ${i}`, topics: ['events'] });
    // Each commit woke the hub (the SQLite store on commit, PostgreSQL by NOTIFY).
    await new Promise((r) => setTimeout(r, 200));
    expect(bounds).not.toHaveBeenCalled();
    expect(after).not.toHaveBeenCalled();
    const s = await subscribe();
    const f = await publish('/findings', { content: 'published to a listener', topics: ['events'] });
    const [first] = await s.waitFor(1);
    expect(first!.data.object.id).toBe(f.id);
    await new Promise((r) => setTimeout(r, 200));
    expect(s.events).toHaveLength(1);
    expect(bounds).toHaveBeenCalledTimes(1);
  });

  it('sends a heartbeat comment on idle streams', async () => {
    const s = await subscribe();
    await s.waitForComment((c) => c === 'heartbeat', 2000);
  });

  it('refuses bad filters and ids with 400, and a client over its stream limit with 429', async () => {
    for (const [query, headers, path] of [
      ['?thread=nope', {}, 'query/thread/0'],
      ['?type=memo', {}, 'query/type/0'],
      ['?topic=x', {}, 'query/topic/0'],
      ['', { 'last-event-id': 'abc' }, 'header/last-event-id'],
      ['?last_event_id=-1', {}, 'query/last_event_id'],
    ] as const) {
      const r = await b.json('GET', `/events${query}`, { headers });
      expect(r.status, query).toBe(400);
      expect(r.res.headers.get('content-type')).toBe('application/problem+json');
      expect(r.body.errors[0].path).toBe(path);
    }
    for (let i = 0; i < 3; i++) await subscribe('', {}, '198.51.100.200');
    const over = await b.json('GET', '/events', { from: '198.51.100.200' });
    expect(over.status).toBe(429);
    expect(over.body.type).toBe('http://board.test/problems/rate-limited');
    // Another client is not affected, and a closed stream frees its place.
    await subscribe('', {}, '198.51.100.201');
    await readers[0]!.close();
    await subscribe('', {}, '198.51.100.200');
  });
});
