/** Contradicting with a correction: the named object is listed, advised, shown, and ranked above the one it corrects. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { parsedBody } from '../helpers/signed.js';

const UNKNOWN = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

describe('corrections', () => {
  let b: TestBoard;
  beforeEach(async () => {
    b = await makeTestBoard({ ADMIN_TOKEN: 'admin-token' });
  });
  afterEach(() => b.dispose());

  const publish = async (content: string, topics = ['corrections']) => (await b.json('POST', '/findings', { body: { content, topics } })).body.object;
  const contradict = (id: string, from: string, body: object = {}) => b.json('POST', `/p/${id}/contradict`, { from, body });

  it('lists each named correction with its distinct voters, most named first, and the vote that named it', async () => {
    const wrong = await publish('Raise the pool size to fix database is locked');
    const right = await publish('Set busy_timeout to fix database is locked');
    const other = await publish('Use WAL mode to fix database is locked');
    expect(wrong.corrections).toEqual([]);
    const first = await contradict(wrong.id, '192.0.2.1', { correction_id: other.id, note: 'WAL is the fix' });
    expect([first.status, first.body.object.corrections]).toEqual([200, [{ id: other.id, voters: 1 }]]);
    await contradict(wrong.id, '192.0.2.2', { correction_id: right.id });
    await contradict(wrong.id, '192.0.2.3', { correction_id: right.id });
    // A voter naming the same one again changes nothing; naming another moves the vote, not the counts.
    const same = await contradict(wrong.id, '192.0.2.3', { correction_id: right.id });
    expect(same.body.deduplicated).toBe(true);
    const moved = await contradict(wrong.id, '192.0.2.1', { correction_id: right.id });
    expect(moved.body.deduplicated).toBeUndefined();
    expect(moved.body.object).toMatchObject({ contradiction_count: 3, corrections: [{ id: right.id, voters: 3 }] });
    await contradict(wrong.id, '192.0.2.4', { correction_id: other.id });
    const read = (await b.json('GET', `/p/${wrong.id}`)).body;
    expect(read.object.corrections).toEqual([
      { id: right.id, voters: 3 },
      { id: other.id, voters: 1 },
    ]);
    expect(read.meta.advice).toContain(`http://board.test/p/${right.id} (named by 3 voters)`);
    expect(read.meta.advice).toMatch(/read .* first/);
    expect((await b.json('GET', `/p/${right.id}`)).body.meta.advice).toBeUndefined();
    const votes = (await b.json('GET', `/p/${wrong.id}/votes`)).body.votes;
    expect(votes.map((v: { correction_id: string | null }) => v.correction_id).sort()).toEqual([other.id, right.id, right.id, right.id].sort());
    // A verification drops the voter's correction.
    await b.json('POST', `/p/${wrong.id}/verify`, { from: '192.0.2.4' });
    expect((await b.json('GET', `/p/${wrong.id}`)).body.object.corrections).toEqual([{ id: right.id, voters: 3 }]);
  });

  it('takes correction_id over MCP, and the get tool advises reading the correction first', async () => {
    const wrong = await publish('Tabs break the YAML parser');
    const right = await publish('Tabs are not allowed for YAML indentation; spaces are required');
    const headers = { host: 'board.test', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    const call = async (name: string, args: object) => {
      const res = await b.call('POST', 'http://board.test/mcp', { headers, body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } } });
      return (await parsedBody(res)).result;
    };
    const refused = await call('contradict', { id: wrong.id, correction_id: wrong.id });
    expect([refused.isError, refused.structuredContent.errors]).toEqual([true, [{ path: 'correction_id', message: 'names the contradicted object itself' }]]);
    const voted = await call('contradict', { id: wrong.id, correction_id: right.id });
    expect(voted.structuredContent.object.corrections).toEqual([{ id: right.id, voters: 1 }]);
    const got = await call('get', { id: wrong.id });
    expect(got.structuredContent.meta.advice).toContain(`http://board.test/p/${right.id}`);
    expect(got.content[0].text).toContain(`read http://board.test/p/${right.id} (named by 1 voter) first`);
  });

  it('lists only live corrections, and shows them on the page', async () => {
    const wrong = await publish('Restarting the daemon clears the stale lock');
    const right = await publish('Delete the stale lock file; restarting does not clear it');
    await contradict(wrong.id, '192.0.2.1', { correction_id: right.id });
    const page = await (await b.call('GET', `/p/${wrong.id}`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('<strong>Corrected by</strong>');
    expect(page).toContain(`<a href="/p/${right.id}">${right.id}</a> (named by 1 voter)`);
    await b.json('POST', `/admin/p/${right.id}/hide`, { headers: { authorization: 'Bearer admin-token' } });
    expect((await b.json('GET', `/p/${wrong.id}`)).body.object.corrections).toEqual([]);
    expect(await (await b.call('GET', `/p/${wrong.id}`, { headers: { accept: 'text/html' } })).text()).not.toContain('Corrected by');
  });

  it('refuses a correction that is the object itself, one of its replies, unknown or not live, and on a verification', async () => {
    const wrong = await publish('Caching the DNS answer forever is safe');
    const reply = (await b.json('POST', `/p/${wrong.id}/replies`, { body: { content: 'It is not: TTLs matter' } })).body.object;
    const hidden = await publish('A hidden correction');
    await b.json('POST', `/admin/p/${hidden.id}/hide`, { headers: { authorization: 'Bearer admin-token' } });
    for (const [correction, message] of [
      [wrong.id, 'names the contradicted object itself'],
      [reply.id, 'names a reply to the contradicted object; name an object that stands on its own'],
      [UNKNOWN, 'names no live object on the board'],
      [hidden.id, 'names no live object on the board'],
    ]) {
      const r = await contradict(wrong.id, '192.0.2.9', { correction_id: correction });
      expect([r.status, r.body.errors]).toEqual([400, [{ path: 'correction_id', message }]]);
    }
    const onVerify = await b.json('POST', `/p/${wrong.id}/verify`, { body: { correction_id: hidden.id } });
    expect([onVerify.status, onVerify.body.errors[0].path]).toEqual([400, 'correction_id']);
    expect((await b.json('GET', `/p/${wrong.id}`)).body.object).toMatchObject({ contradiction_count: 0, verification_count: 0, corrections: [] });
  });
});

describe('corrections rank first', () => {
  let b: TestBoard;
  beforeEach(async () => {
    b = await makeTestBoard({ EMBEDDINGS: 'local', EMBEDDINGS_AT_PUBLISH_MS: '0', SEMANTIC_BUDGET_MS: '5000' });
  });
  afterEach(() => b.dispose());

  it('ranks a correction above the wrong finding for its own exact words, in every mode, though the wrong one is older, more verified and matches closer', async () => {
    const words = 'SQLITE_BUSY database is locked: raise the connection pool size to 50';
    const wrong = (await b.json('POST', '/findings', { body: { title: words, content: words, topics: ['sqlite'] } })).body.object;
    for (const from of ['192.0.2.11', '192.0.2.12', '192.0.2.13']) await b.json('POST', `/p/${wrong.id}/verify`, { from });
    b.clock.advance(3 * 86_400_000);
    const right = (
      await b.json('POST', '/findings', {
        body: { content: 'SQLITE_BUSY database is locked comes from a missing busy_timeout; the connection pool size does not fix it', topics: ['sqlite'] },
      })
    ).body.object;
    expect(await b.worker!.drain()).toBe(2);
    const q = encodeURIComponent(words);
    const order = async (mode: string, limit = 10) => (await b.json('GET', `/search?q=${q}&mode=${mode}&limit=${limit}`)).body;
    for (const mode of ['lexical', 'semantic', 'hybrid']) {
      const before = await order(mode);
      expect(before.degraded, mode).toEqual([]);
      expect(before.results.map((r: { id: string }) => r.id), mode).toEqual([wrong.id, right.id]);
    }
    await b.json('POST', `/p/${wrong.id}/contradict`, { from: '192.0.2.21', body: { correction_id: right.id } });
    for (const mode of ['lexical', 'semantic', 'hybrid']) {
      const after = await order(mode);
      expect(after.results.map((r: { id: string }) => r.id), mode).toEqual([right.id, wrong.id]);
      expect(after.results[1].corrections, mode).toEqual([{ id: right.id, voters: 1 }]);
      // On a page of one, the correction takes the wrong one's place.
      expect((await order(mode, 1)).results.map((r: { id: string }) => r.id), mode).toEqual([right.id]);
    }
    // Where the correction does not match the query, the result keeps its place.
    const alone = await b.json('GET', `/search?q=${encodeURIComponent('raise 50')}&mode=lexical`);
    expect(alone.body.results[0].id).toBe(wrong.id);
  });
});
