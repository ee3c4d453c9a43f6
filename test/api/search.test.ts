import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SearchEnvelope } from '../../src/schemas/resources.js';
import { makeTestBoard, OBJECT_FIELDS, type TestBoard } from '../helpers/board.js';
import { expectValid } from '../helpers/schema.js';

let b: TestBoard;
beforeEach(async () => {
  b = await makeTestBoard();
});
afterEach(async () => b.dispose());

const DAY = 86_400_000;
const publish = async (path: string, body: object) => {
  const r = await b.json('POST', path, { body });
  expect(r.status).toBe(201);
  return r.body.object;
};
const search = (qs: string) => b.json('GET', `/search?${qs}`);

describe('GET /search', () => {
  it('answers the SearchEnvelope with scored results, snippets and related topics', async () => {
    const f = await publish('/findings', { title: 'Connection pool exhausted', content: 'pg pool exhausted under load: raise max and add a queue', topics: ['postgres', 'pooling'] });
    const r = await search('q=pool%20exhausted');
    expect(r.status).toBe(200);
    expectValid(SearchEnvelope, r.body);
    expect(r.body.query).toBe('pool exhausted');
    expect(r.body.degraded).toEqual(['semantic']);
    const [hit] = r.body.results;
    expect(Object.keys(hit).sort()).toEqual([...OBJECT_FIELDS, 'matched_by', 'score', 'snippet'].sort());
    expect(hit).toMatchObject({ id: f.id, score: 1, matched_by: ['lexical'] });
    expect(hit.snippet).toContain('pool exhausted');
    expect(r.body.related_topics).toEqual([
      { slug: 'pooling', count: 1 },
      { slug: 'postgres', count: 1 },
    ]);
    expect(r.body.meta.search).toContain('/search?q=');
  });

  it('mode=lexical puts the exact error string, punctuation and all, before looser term matches', async () => {
    const loose = await publish('/findings', {
      title: 'SQLite busy database locked tips',
      content: 'When sqlite reports busy or a database is locked, look at long transactions. locked locked database sqlite busy.',
      topics: ['sqlite'],
    });
    const exact = await publish('/findings', {
      title: 'Writers racing',
      content: 'Under load the app logs "SQLITE_BUSY: database is locked" even with WAL; set busy_timeout first.',
      topics: ['sqlite'],
    });
    await b.json('POST', `/p/${loose.id}/verify`, { from: '192.0.2.10' });
    const r = await search(`q=${encodeURIComponent('SQLITE_BUSY: database is locked')}&mode=lexical`);
    expect(r.body.results.map((h: any) => h.id)).toEqual([exact.id, loose.id]);
    expect(r.body.results[0].score).toBe(1);
    expect(r.body.results[1].score).toBeLessThan(1);
    expect(r.body.results[0].snippet).toContain('SQLITE_BUSY: database is locked');
  });

  it('ranks fresher and better-verified objects higher among equal matches', async () => {
    const old = await publish('/findings', { content: 'ECONNRESET from pg: enable keepalive', topics: ['pg'], expires_in: 200 * 86_400 });
    b.clock.advance(40 * DAY);
    const fresh = await publish('/findings', { content: 'ECONNRESET from pg: enable keepalive (seen again)', topics: ['pg'] });
    let r = await search('q=ECONNRESET%20keepalive');
    expect(r.body.results[0].id).toBe(fresh.id);
    for (let i = 0; i < 6; i++) await b.json('POST', `/p/${old.id}/verify`, { from: `192.0.2.${i + 20}` });
    for (let i = 0; i < 2; i++) await b.json('POST', `/p/${fresh.id}/contradict`, { from: `192.0.2.${i + 40}` });
    r = await search('q=ECONNRESET%20keepalive');
    // The fresh one is now disputed (2 contradictions, 0 verifications) and leaves search.
    expect(r.body.results.map((h: any) => h.id)).toEqual([old.id]);
  });

  it('returns live objects only', async () => {
    await publish('/status', { content: 'deploying zebra release', topics: ['ops'], expires_in: 10 });
    const keep = await publish('/findings', { content: 'zebra release notes', topics: ['ops'] });
    b.clock.advance(11_000);
    const r = await search('q=zebra');
    expect(r.body.results.map((h: any) => h.id)).toEqual([keep.id]);
    expect(r.body.results.every((h: any) => h.state === 'live')).toBe(true);
  });

  it('filters by type and topic, repeated or comma-separated', async () => {
    const f = await publish('/findings', { content: 'kafka lag finding', topics: ['kafka'] });
    const q = await publish('/requests', { content: 'kafka lag question', topics: ['kafka', 'ops'] });
    const reply = (await b.json('POST', `/p/${q.id}/replies`, { body: { content: 'kafka lag answer' } })).body.object;
    const ids = async (qs: string) => (await search(`q=kafka%20lag&${qs}`)).body.results.map((h: any) => h.id).sort();
    expect(await ids('type=request')).toEqual([q.id]);
    expect(await ids('type=request&type=response')).toEqual([q.id, reply.id].sort());
    expect(await ids('type=finding,request')).toEqual([f.id, q.id].sort());
    expect(await ids('topic=ops')).toEqual([q.id, reply.id].sort());
    expect(await ids('topic=OPS,kafka&type=finding')).toEqual([f.id]);
  });

  it('respects limit (default 10, at most 50)', async () => {
    for (let i = 0; i < 12; i++) await publish('/findings', { content: `widget note ${i}`, topics: ['w'] });
    expect((await search('q=widget')).body.results).toHaveLength(10);
    expect((await search('q=widget&limit=3')).body.results).toHaveLength(3);
    expect((await search('q=widget&limit=50')).body.results).toHaveLength(12);
  });

  it('ranks at least as many candidates per leg as the page asks for, whatever SEARCH_CANDIDATES says', async () => {
    const few = await makeTestBoard({ SEARCH_CANDIDATES: '10' });
    try {
      for (let i = 0; i < 25; i++) expect((await few.json('POST', '/findings', { body: { content: `gadget note ${i}`, topics: ['g'] } })).status).toBe(201);
      expect((await few.json('GET', '/search?q=gadget')).body.results).toHaveLength(10);
      expect((await few.json('GET', '/search?q=gadget&limit=20')).body.results).toHaveLength(20);
      expect((await few.json('GET', '/search?q=gadget%20note&mode=lexical&limit=25')).body.results).toHaveLength(25);
    } finally {
      await few.dispose();
    }
  });

  it('on no results offers topics that resemble the query and says to retry with one', async () => {
    for (let i = 0; i < 2; i++) await publish('/findings', { content: `note ${i}`, topics: ['kubernetes', 'networking'] });
    const r = await search('q=kubernetes%20qwertyuiop&type=request');
    expect(r.body.results).toEqual([]);
    expect(r.body.related_topics).toEqual([{ slug: 'kubernetes', count: 2 }]);
    expect(r.body.meta.search).toContain('Retry with one of the related topics');
    expect(r.body.meta.search).toContain('kubernetes');
  });

  it('mode=semantic without a semantic leg answers lexically with degraded semantic', async () => {
    const f = await publish('/findings', { content: 'gizmo calibration', topics: ['x'] });
    const r = await search('q=gizmo&mode=semantic');
    expect(r.status).toBe(200);
    expect(r.body.degraded).toEqual(['semantic']);
    expect(r.body.results.map((h: any) => h.id)).toEqual([f.id]);
  });

  it('keeps snippets plain and short', async () => {
    const content = `${'lorem ipsum '.repeat(200)} the needle sits here ${'dolor sit '.repeat(200)}`.slice(0, 4000);
    await publish('/findings', { content, topics: ['x'] });
    const [hit] = (await search('q=needle')).body.results;
    expect([...hit.snippet].length).toBeLessThanOrEqual(240);
    expect(hit.snippet).toContain('needle');
    expect(hit.snippet.startsWith('…')).toBe(true);
  });

  it('keeps scores finite when every result weighs 0 (freshness floor 0, very old objects)', async () => {
    const zero = await makeTestBoard({ FRESHNESS_FLOOR: '0', FRESHNESS_HALF_LIFE_DAYS: '0.0001' });
    try {
      await zero.json('POST', '/findings', { body: { content: 'ancient widget note', topics: ['x'], expires_in: 300 * 86_400 } });
      zero.clock.advance(200 * DAY);
      const r = await zero.json('GET', '/search?q=widget%20gizmo');
      expect(r.body.results).toHaveLength(1);
      expect(Number.isFinite(r.body.results[0].score)).toBe(true);
    } finally {
      await zero.dispose();
    }
  });

  it('survives queries full of search syntax', async () => {
    await publish('/findings', { content: 'plain text', topics: ['x'] });
    for (const q of ['"', 'NEAR(a b)', 'a OR b AND NOT c', '*', 'title:x', '(((', '☃☃', '   ', "'; DROP TABLE objects; --"]) {
      const r = await search(`q=${encodeURIComponent(q)}`);
      expect(r.status).toBe(200);
      expect(Array.isArray(r.body.results)).toBe(true);
    }
  });

  it.each([
    ['', 'query/q', 'is required'],
    ['q=', 'query/q', 'must not be empty'],
    [`q=${'x'.repeat(501)}`, 'query/q', 'must be at most 500 characters'],
    ['q=x&type=note', 'query/type/0', null],
    ['q=x&mode=fuzzy', 'query/mode', null],
    ['q=x&limit=0', 'query/limit', 'must be at least 1'],
    ['q=x&limit=51', 'query/limit', 'must be at most 50'],
    ['q=x&topic=a', 'query/topic/0', 'must be a topic of 2 to 40 characters'],
  ])('400 for %j', async (qs, path, message) => {
    const r = await search(qs);
    expect(r.status).toBe(400);
    expect(r.body.type).toBe('http://board.test/problems/validation-error');
    expect(r.body.errors[0].path).toBe(path);
    if (message) expect(r.body.errors[0].message).toBe(message);
  });
});
