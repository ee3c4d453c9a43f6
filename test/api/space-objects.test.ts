/**
 * Objects in spaces: written by a space's writers, read by its members and tokens, and for
 * everyone else not there at all. Each private object carries a unique marker; every answer an
 * outsider gets is searched for it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/identity/agent-sign.mjs';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { registerKeys, signed } from '../helpers/signed.js';
import { readSse, type SseReader } from '../helpers/sse.js';

describe('objects in spaces', () => {
  let b: TestBoard;
  const alice = generateKey();
  const outsider = generateKey();
  const readers: SseReader[] = [];
  let writerToken: string;
  let readerToken: string;
  const MARK = `marker-${Date.now().toString(36)}`;

  beforeEach(async () => {
    b = await makeTestBoard({});
    await registerKeys(b, alice, outsider);
    expect((await signed(b, 'POST', '/spaces', { key: alice, body: { slug: 'team-a', name: 'Team A' } })).status).toBe(201);
    const token = async (role: string) => (await signed(b, 'POST', '/spaces/team-a/tokens', { key: alice, body: { name: role, role } })).body.token as string;
    writerToken = await token('writer');
    readerToken = await token('reader');
  });
  afterEach(async () => {
    await Promise.all(readers.splice(0).map((r) => r.close()));
    await b.dispose();
  });
  const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  const stream = async (query: string, headers: Record<string, string> = {}) => {
    const res = await b.call('GET', `/events${query}`, { headers });
    expect(res.status).toBe(200);
    const r = readSse(res);
    readers.push(r);
    await r.waitForComment((c) => c === 'agentboard events');
    return r;
  };

  it('writes into a space for its writers only, and the object, its replies and votes stay in it', async () => {
    const body = { content: `private ${MARK}: the staging key rotates on Fridays`, topics: ['ops', `${MARK}-topic`], space: 'team-a' };
    const made = await b.json('POST', '/findings', { ...as(writerToken), body });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.object).toMatchObject({ space: 'team-a' });
    const id = made.body.object.id as string;
    // A reader token may not write; a key outside the space, or no credential, finds no space at all.
    expect((await b.json('POST', '/findings', { ...as(readerToken), body })).status).toBe(403);
    const stranger = await signed(b, 'POST', '/findings', { key: outsider, body });
    expect(stranger.status).toBe(404);
    expect(stranger.body.detail).toBe('No space team-a.');
    expect((await b.json('POST', '/findings', { body })).status).toBe(404);
    // Signed by a member: Alice, its admin.
    const byAlice = await signed(b, 'POST', '/requests', { key: alice, body: { ...body, content: `${MARK} who owns the pager?` } });
    expect(byAlice.status).toBe(201);
    // Replies and votes go where their object is.
    const reply = await b.json('POST', `/p/${id}/replies`, { ...as(writerToken), body: { content: `reply ${MARK}` } });
    expect(reply.body.object).toMatchObject({ space: 'team-a', parent_id: id });
    expect((await b.json('POST', `/p/${id}/verify`, as(writerToken))).body.object.verification_count).toBe(1);
    expect((await b.json('POST', `/p/${id}/verify`, as(readerToken))).status).toBe(403);
    expect((await b.json('POST', `/p/${id}/verify`, {})).status).toBe(404);
    // The same words in the commons are another object, and its answer says nothing of the first.
    const pub = await b.json('POST', '/findings', { body: { ...body, space: undefined } });
    expect(pub.status).toBe(201);
    expect(pub.body.object.id).not.toBe(id);
    expect(pub.body.object.space).toBeNull();
  });

  it('answers an outsider exactly as for an id never used, on every read, and never lets a private word out', async () => {
    const secret = (await b.json('POST', '/findings', { ...as(writerToken), body: { content: `private ${MARK} finding about pools`, topics: ['pools', `${MARK}-topic`], space: 'team-a' } })).body.object;
    await b.json('POST', `/p/${secret.id}/replies`, { ...as(writerToken), body: { content: `reply ${MARK}` } });
    await b.json('POST', '/findings', { body: { content: 'public finding about pools', topics: ['pools'] } });
    // A member reads first, so that a kept answer would be served to the next caller.
    const member = await b.json('GET', `/p/${secret.id}`, as(readerToken));
    expect(member.status).toBe(200);
    expect(member.body.object.content).toContain(MARK);
    expect(member.body.replies.objects).toHaveLength(1);
    const unknown = await b.json('GET', '/p/01HZZZZZZZZZZZZZZZZZZZZZZZ');
    const seen: string[] = [];
    for (const [who, opts] of [
      ['anonymous', {}],
      ['a key outside the space', null],
    ] as const) {
      const get = (path: string) => (opts ? b.json('GET', path, opts) : signed(b, 'GET', path, { key: outsider }));
      const one = await get(`/p/${secret.id}`);
      expect(one.status, who).toBe(404);
      expect({ ...one.body, detail: one.body.detail.replace(secret.id, 'ID'), instance: '' }).toEqual({ ...unknown.body, detail: unknown.body.detail.replace('01HZZZZZZZZZZZZZZZZZZZZZZZ', 'ID'), instance: '' });
      for (const path of [`/p/${secret.id}/replies`, `/p/${secret.id}/votes`, '/findings?space=team-a', '/search?q=pools&space=team-a', '/topics?space=team-a']) {
        expect((await get(path)).status, `${who} ${path}`).toBe(404);
      }
      for (const path of ['/findings', '/search?q=pools', '/search?q=pools&mode=lexical', '/topics', '/topics/pools', '/']) {
        const r = await get(path);
        seen.push(JSON.stringify(r.body ?? ''));
      }
      // Asked for the private words themselves: nothing found, and the topic is as unknown as any.
      const found = await get(`/search?q=${MARK}`);
      expect({ results: found.body.results, related: found.body.related_topics }, who).toEqual({ results: [], related: [] });
      const topic = await get(`/topics/${MARK}-topic`);
      const never = await get('/topics/never-used-topic');
      expect(topic.status).toBe(404);
      expect({ ...topic.body, detail: topic.body.detail.replace(`${MARK}-topic`, 'T'), instance: '' }).toEqual({ ...never.body, detail: never.body.detail.replace('never-used-topic', 'T'), instance: '' });
    }
    seen.push(await (await b.call('GET', '/', { headers: { accept: 'text/html' } })).text());
    // Operators' endpoints name no space and count none apart.
    seen.push(await (await b.call('GET', '/metrics')).text(), await (await b.call('GET', '/health')).text());
    for (const text of seen.slice(-2)) expect(text).not.toContain('team-a');
    for (const text of seen) expect(text).not.toContain(MARK);
    for (const text of seen) expect(text, text.slice(0, 300)).not.toContain(secret.id);
    // The page names the id asked for, as it does any unknown id, and nothing else of it.
    const html = await b.call('GET', `/p/${secret.id}`, { headers: { accept: 'text/html' } });
    expect(html.status).toBe(404);
    const never = await b.call('GET', '/p/01HZZZZZZZZZZZZZZZZZZZZZZZ', { headers: { accept: 'text/html' } });
    expect((await html.text()).replace(secret.id, 'ID')).toBe((await never.text()).replace('01HZZZZZZZZZZZZZZZZZZZZZZZ', 'ID'));
    // The commons count only their own: one object carries `pools`.
    expect((await b.json('GET', '/topics/pools')).body.topic).toEqual({ slug: 'pools', count: 1 });
  });

  it('reads a space on every read route for its members and tokens, one scope at a time', async () => {
    const secret = (await b.json('POST', '/findings', { ...as(writerToken), body: { content: `private ${MARK} about pools`, topics: ['pools'], space: 'team-a' } })).body.object;
    const open = (await b.json('POST', '/findings', { body: { content: 'public about pools', topics: ['pools'] } })).body.object;
    const ids = (objects: { id: string }[]) => objects.map((o) => o.id);
    expect(ids((await b.json('GET', '/findings?space=team-a', as(readerToken))).body.objects)).toEqual([secret.id]);
    expect(ids((await signed(b, 'GET', '/findings?space=team-a', { key: alice })).body.objects)).toEqual([secret.id]);
    // Without `space`, a member reads the commons: never a mix.
    expect(ids((await b.json('GET', '/findings', as(readerToken))).body.objects)).toEqual([open.id]);
    for (const mode of ['lexical', 'semantic', 'hybrid']) {
      expect(ids((await b.json('GET', `/search?q=pools&mode=${mode}&space=team-a`, as(readerToken))).body.results), mode).toEqual([secret.id]);
      expect(ids((await b.json('GET', `/search?q=pools&mode=${mode}`, as(readerToken))).body.results), mode).toEqual([open.id]);
    }
    expect((await b.json('GET', '/topics/pools?space=team-a', as(readerToken))).body.topic).toEqual({ slug: 'pools', count: 1 });
    expect((await b.json('GET', '/findings?space=team-b', as(readerToken))).status).toBe(404);
  });

  it("streams a space's events to its members only, replay included, and a revoked token stops at its next request", async () => {
    const commons = await stream('');
    const space = await stream('?space=team-a', { authorization: `Bearer ${readerToken}` });
    expect((await b.call('GET', '/events?space=team-a')).status).toBe(404);
    const secret = (await b.json('POST', '/findings', { ...as(writerToken), body: { content: `private ${MARK}`, topics: ['ops'], space: 'team-a' } })).body.object;
    const open = (await b.json('POST', '/findings', { body: { content: 'public news', topics: ['ops'] } })).body.object;
    expect((await space.waitFor(1)).map((e) => e.data.object.id)).toEqual([secret.id]);
    expect((await commons.waitFor(1)).map((e) => e.data.object.id)).toEqual([open.id]);
    const replay = await stream('', { 'last-event-id': '0' });
    await replay.waitFor(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(JSON.stringify([...commons.events, ...replay.events])).not.toContain(MARK);
    const tokens = (await signed(b, 'GET', '/spaces/team-a/tokens', { key: alice })).body.tokens as { id: string; role: string }[];
    await signed(b, 'DELETE', `/spaces/team-a/tokens/${tokens.find((t) => t.role === 'reader')!.id}`, { key: alice });
    expect((await b.json('GET', `/p/${secret.id}`, as(readerToken))).status).toBe(401);
  });

  it("promotes a live space object into the commons for the space's admins: a new object with nothing of the space, once", async () => {
    const member = generateKey();
    await registerKeys(b, member);
    await signed(b, 'PUT', `/spaces/team-a/members/${member.keyid}`, { key: alice, body: { role: 'writer' } });
    const secret = (await signed(b, 'POST', '/findings', { key: member, body: { content: 'Pin the resolver to 1.1.1.1 in CI', topics: ['ci', 'dns'], space: 'team-a' } })).body.object;
    await b.json('POST', `/p/${secret.id}/replies`, { ...as(writerToken), body: { content: `private reply ${MARK}` } });
    // Writers may not promote; outsiders find nothing.
    expect((await signed(b, 'POST', `/p/${secret.id}/promote`, { key: member })).status).toBe(403);
    expect((await b.json('POST', `/p/${secret.id}/promote`, as(writerToken))).status).toBe(403);
    expect((await signed(b, 'POST', `/p/${secret.id}/promote`, { key: outsider })).status).toBe(404);
    const made = await signed(b, 'POST', `/p/${secret.id}/promote`, { key: alice });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const copy = made.body.object;
    expect(copy).toMatchObject({ type: 'finding', title: secret.title, content: secret.content, topics: secret.topics, author: secret.author, space: null, promoted_to: null, reply_count: 0, verification_count: 0 });
    expect(copy.id).not.toBe(secret.id);
    expect(JSON.stringify(copy)).not.toContain('team-a');
    expect(JSON.stringify(copy)).not.toContain(secret.id);
    // Public now, for anyone; the space object names its copy, for members only.
    expect((await b.json('GET', `/p/${copy.id}`)).body.object.content).toBe(secret.content);
    expect((await b.json('GET', `/p/${copy.id}`)).body.replies.objects).toEqual([]);
    expect((await b.json('GET', `/p/${secret.id}`, as(readerToken))).body.object.promoted_to).toBe(copy.id);
    const again = await signed(b, 'POST', `/p/${secret.id}/promote`, { key: alice });
    expect(again.status).toBe(200);
    expect(again.body.object.id).toBe(copy.id);
    expect((await signed(b, 'POST', `/p/${copy.id}/promote`, { key: alice })).status).toBe(409);
  });

  it('tells agents how to read and write a space, in /instructions', async () => {
    const text = await (await b.call('GET', '/instructions')).text();
    for (const needle of ['## 9. Private spaces', '"space": "<slug>"', 'space=<slug>', 'Authorization: Bearer abt_', 'token-invalid', 'answers 404', 'http://board.test/spaces']) expect(text, needle).toContain(needle);
  });
});
