import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { startEmbeddingsServer, type EmbeddingsServer } from '../helpers/embeddings-server.js';
import { POTION } from '../helpers/paths.js';
import { openEmbedder } from '../../src/compose.js';
import { LocalEmbedder } from '../../src/embed/local-embedder.js';
import { createLogger } from '../../src/log.js';
import { EmbedWorker } from '../../src/service/search/embed-worker.js';

const LOCAL = { EMBEDDINGS: 'local', EMBEDDINGS_MODEL: POTION, SEMANTIC_BUDGET_MS: '5000' };

async function publish(b: TestBoard, path: string, body: object) {
  const r = await b.json('POST', path, { body });
  expect(r.status).toBe(201);
  return r.body.object as { id: string };
}

const ids = (r: { body: { results: { id: string }[] } }) => r.body.results.map((h) => h.id);

describe('semantic leg with the local model', () => {
  let b: TestBoard;
  beforeEach(async () => {
    b = await makeTestBoard(LOCAL);
  });
  afterEach(async () => b.dispose());

  it('a new object is searchable lexically and semantically as soon as its publish is answered: its vector is stored with it', async () => {
    // The model loaded first, as `serve` loads it before it listens: a publish waits 100 ms at most.
    await b.json('GET', '/search?q=warm&mode=semantic');
    const o = await publish(b, '/findings', { content: 'The database connection pool is exhausted under load', topics: ['postgres'] });
    expect(ids(await b.json('GET', '/search?q=connection%20pool&mode=lexical'))).toEqual([o.id]);
    const r = await b.json('GET', `/search?q=${encodeURIComponent('too many open connections to postgres')}&mode=semantic`);
    expect(r.body.degraded).toEqual([]);
    expect(ids(r)).toEqual([o.id]);
    expect(r.body.results[0].matched_by).toEqual(['semantic']);
    // Nothing was left to the queue.
    expect(await b.worker!.drain()).toBe(0);
  });

  it('with EMBEDDINGS_AT_PUBLISH_MS=0, a new object is searchable semantically once the worker has run', async () => {
    const queued = await makeTestBoard({ ...LOCAL, EMBEDDINGS_AT_PUBLISH_MS: '0' });
    try {
      const o = await publish(queued, '/findings', { content: 'The database connection pool is exhausted under load', topics: ['postgres'] });
      const q = `/search?q=${encodeURIComponent('too many open connections to postgres')}&mode=semantic`;
      const before = await queued.json('GET', q);
      expect(before.body.degraded).toEqual([]);
      expect(ids(before)).toEqual([]);
      expect(await queued.worker!.drain()).toBe(1);
      expect(ids(await queued.json('GET', q))).toEqual([o.id]);
    } finally {
      await queued.dispose();
    }
  });

  it('hybrid fuses both legs: matched_by names every leg that found a result', async () => {
    const both = await publish(b, '/findings', { content: 'Connection pool exhausted: raise max connections and queue requests', topics: ['postgres'] });
    const meaning = await publish(b, '/findings', { content: 'The database ran out of sessions for clients', topics: ['postgres'] });
    await publish(b, '/findings', { content: 'Sourdough needs a long cold proof in the fridge', topics: ['baking'] });
    await b.worker!.drain();
    const r = await b.json('GET', '/search?q=connection%20pool%20exhausted&limit=3');
    expect(r.body.degraded).toEqual([]);
    const hit = (id: string) => r.body.results.find((h: { id: string }) => h.id === id);
    expect(r.body.results[0].id).toBe(both.id);
    expect(hit(both.id).matched_by).toEqual(['lexical', 'semantic']);
    expect(hit(meaning.id)?.matched_by).toEqual(['semantic']);
    expect(r.body.results[0].score).toBe(1);
  });

  it('k-NN stays correct under selective filters and returns live objects only', async () => {
    for (let i = 0; i < 30; i++) await publish(b, '/findings', { content: `Connection pool exhausted in service ${i}`, topics: ['postgres'] });
    const req = await publish(b, '/requests', { content: 'Anyone seen the database reject new clients at night?', topics: ['baking'] });
    await publish(b, '/requests', { content: 'Anyone seen sourdough bread fail to rise?', topics: ['baking'] });
    const brief = await publish(b, '/status', { content: 'Connection pool exhausted right now, investigating', topics: ['ops'], expires_in: 30 });
    await b.worker!.drain();
    const q = encodeURIComponent('database connection pool exhausted');
    // The related request is less similar than every finding, yet the filters find it; the
    // unrelated one is not a result at all.
    expect(ids(await b.json('GET', `/search?q=${q}&mode=semantic&type=request`))).toEqual([req.id]);
    expect(ids(await b.json('GET', `/search?q=${q}&mode=semantic&topic=baking`))).toEqual([req.id]);
    expect(ids(await b.json('GET', `/search?q=${q}&mode=semantic&limit=50`))).toContain(brief.id);
    b.clock.advance(31_000);
    const later = await b.json('GET', `/search?q=${q}&mode=semantic&limit=50`);
    expect(ids(later)).not.toContain(brief.id);
    expect(later.body.results.every((h: { state: string }) => h.state === 'live')).toBe(true);
  });

  it('unrelated objects are not results: each leg has a relevance floor', async () => {
    const related = [
      await publish(b, '/findings', { content: 'Connection pool exhausted: raise max connections and queue requests', topics: ['postgres'] }),
      await publish(b, '/findings', { content: 'The database ran out of sessions for clients', topics: ['postgres'] }),
    ];
    const unrelated = [
      ['Sourdough needs a long cold proof in the fridge', 'baking'],
      ['Tomato seedlings want sixteen hours of light', 'garden'],
      ['The cat sleeps on the warm laptop keyboard', 'pets'],
      ['Marathon pacing: run the first half slower', 'running'],
      ['Watercolour paper buckles unless it is stretched', 'painting'],
      ['Guitar strings go dull after a month of play', 'music'],
      ['Knead rye dough less than wheat dough', 'baking'],
    ];
    for (const [content, topic] of unrelated) await publish(b, '/findings', { content, topics: [topic] });
    await b.worker!.drain();
    const q = encodeURIComponent('database connection pool exhausted');
    for (const mode of ['hybrid', 'semantic', 'lexical']) {
      const r = await b.json('GET', `/search?q=${q}&mode=${mode}`);
      expect(r.body.degraded, mode).toEqual([]);
      expect(ids(r).sort(), mode).toEqual(related.map((o) => o.id).sort());
    }
    // A query about nothing on the board finds nothing, rather than its nearest neighbours.
    expect(ids(await b.json('GET', `/search?q=${encodeURIComponent('kubernetes ingress certificate renewal')}`))).toEqual([]);
  });

  it('on an empty answer offers the topics of the nearest objects', async () => {
    await publish(b, '/findings', { content: 'Sourdough needs a long cold proof in the fridge', topics: ['baking', 'bread'] });
    await b.worker!.drain();
    const r = await b.json('GET', `/search?q=${encodeURIComponent('fermented dough rising slowly')}&type=artifact`);
    expect(r.body.results).toEqual([]);
    expect(r.body.related_topics.map((t: { slug: string }) => t.slug).sort()).toEqual(['baking', 'bread']);
    expect(r.body.meta.search).toContain('Retry with one of the related topics');
  });
});

describe('a semantic leg that cannot answer degrades, never fails', () => {
  let server: EmbeddingsServer;
  beforeEach(async () => {
    server = await startEmbeddingsServer();
  });
  afterEach(async () => server.close());

  it('a failing embeddings API: 200 with lexical results and degraded semantic', async () => {
    const b = await makeTestBoard({ EMBEDDINGS: 'openai', EMBEDDINGS_URL: server.url, EMBEDDINGS_RETRIES: '0' });
    try {
      const o = await publish(b, '/findings', { content: 'gizmo calibration drift', topics: ['x'] });
      server.script = Array(10).fill('fail-500');
      for (const mode of ['hybrid', 'semantic']) {
        const r = await b.json('GET', `/search?q=gizmo&mode=${mode}`);
        expect(r.status).toBe(200);
        expect(r.body.degraded).toEqual(['semantic']);
        expect(ids(r)).toEqual([o.id]);
      }
      // A leg that did not run is not kept: the same search, once the API answers, runs it.
      server.script = [];
      expect((await b.json('GET', '/search?q=gizmo&mode=hybrid')).body.degraded).toEqual([]);
    } finally {
      await b.dispose();
    }
  });

  it('an embeddings API slower than the budget: the answer goes out lexically in time', async () => {
    const b = await makeTestBoard({ EMBEDDINGS: 'openai', EMBEDDINGS_URL: server.url, SEMANTIC_BUDGET_MS: '100' });
    try {
      const o = await publish(b, '/findings', { content: 'gizmo calibration drift', topics: ['x'] });
      server.script = ['hang'];
      const started = Date.now();
      const r = await b.json('GET', '/search?q=gizmo');
      expect(Date.now() - started).toBeLessThan(2000);
      expect(r.body.degraded).toEqual(['semantic']);
      expect(ids(r)).toEqual([o.id]);
    } finally {
      await b.dispose();
    }
  });

  it('EMBEDDINGS=none: every search says the semantic leg did not run', async () => {
    const b = await makeTestBoard({ EMBEDDINGS: 'none' });
    try {
      expect(b.worker).toBeNull();
      expect((await b.json('GET', '/search?q=x&mode=semantic')).body.degraded).toEqual(['semantic']);
      expect((await b.json('GET', '/search?q=x&mode=lexical')).body.degraded).toEqual([]);
    } finally {
      await b.dispose();
    }
  });
});

describe('embedding worker', () => {
  let server: EmbeddingsServer;
  beforeEach(async () => {
    server = await startEmbeddingsServer();
  });
  afterEach(async () => server.close());

  it('retries failed batches with backoff, then recovers', async () => {
    const b = await makeTestBoard({ EMBEDDINGS: 'openai', EMBEDDINGS_URL: server.url, EMBEDDINGS_RETRIES: '0' });
    try {
      await publish(b, '/findings', { content: 'abc', topics: ['x'] });
      server.script = ['fail-500'];
      expect(await b.worker!.runOnce()).toBe(1);
      expect(await b.services.store.embeddings.size()).toBe(1);
      // Not due again until its backoff has passed.
      expect(await b.worker!.runOnce()).toBe(0);
      b.clock.advance(2000);
      expect(await b.worker!.runOnce()).toBe(1);
      expect(await b.services.store.embeddings.size()).toBe(0);
    } finally {
      await b.dispose();
    }
  });

  it('a model down at start is named with its address and remedy; after a restart with it up, queued objects embed at once', async () => {
    const lines: any[] = [];
    const sink = { write: (l: string) => void lines.push(JSON.parse(l)) };
    const down = await makeTestBoard({ EMBEDDINGS: 'openai', EMBEDDINGS_URL: server.url, EMBEDDINGS_RETRIES: '0' });
    const db = join(down.dir, 'board.db');
    const downLog = createLogger('info', sink);
    try {
      const o = await publish(down, '/findings', { content: 'queued while the model was down', topics: ['x'] });
      server.script = ['fail-500', 'fail-500', 'fail-500'];
      const worker = new EmbedWorker({ store: down.services.store, embedder: openEmbedder(down.services.config)!, clock: down.clock, log: downLog, batchSize: 8, disputeMinContradictions: 2, provider: 'openai' });
      await worker.start();
      await worker.stop();
      const warned = lines.find((l) => l.msg.startsWith('embedding model unavailable'));
      expect(warned).toMatchObject({ provider: 'openai', from: `${server.url}/v1/embeddings`, err: 'embeddings API answered 500' });
      expect(warned.remedy).toContain('EMBEDDINGS_URL');
      // Several failed attempts push the job's next try minutes away.
      for (let i = 0; i < 8; i++) await down.services.store.embeddings.fail([o.id], 'down', down.clock.now() + 10 * 60_000);
      expect(await worker.runOnce()).toBe(0);
      await down.close();
      // The restart finds the model up: the job is due at once, not when its backoff ends.
      const up = await makeTestBoard({ EMBEDDINGS: 'openai', EMBEDDINGS_URL: server.url, DATABASE_URL: `sqlite:${db}` });
      try {
        up.clock.set(down.clock.now());
        await up.startBackground();
        await up.worker!.stop();
        expect(await up.worker!.drain()).toBe(1);
        expect(await up.services.store.embeddings.size()).toBe(0);
      } finally {
        await up.dispose();
      }
    } finally {
      await down.dispose();
    }
  });

  it('a hub model without internet: the log names the address tried and EMBEDDINGS_MODEL=<folder>', async () => {
    const lines: any[] = [];
    const b = await makeTestBoard({ EMBEDDINGS: 'none' });
    try {
      const embedder = new LocalEmbedder('no-such-org/no-such-model', join(b.dir, 'models'));
      const worker = new EmbedWorker({ store: b.services.store, embedder, clock: b.clock, log: createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l)) }), batchSize: 8, disputeMinContradictions: 2, provider: 'local' });
      await worker.start();
      await worker.stop();
      const warned = lines.find((l) => l.msg.startsWith('embedding model unavailable'));
      expect(warned.from).toContain('https://huggingface.co/no-such-org/no-such-model');
      expect(warned.remedy).toContain(`EMBEDDINGS_MODEL=<folder>`);
      expect(warned.remedy).toContain(POTION);
      expect(lines.filter((l) => l.msg === 'embeddings ready')).toEqual([]);
    } finally {
      await b.dispose();
    }
  });

  it('backfills at start, and a change of model re-embeds everything', async () => {
    const first = await makeTestBoard({ EMBEDDINGS: 'none' });
    const db = join(first.dir, 'board.db');
    const o = await publish(first, '/findings', { content: 'The database connection pool is exhausted', topics: ['pg'] });
    await first.close();
    // Same file, now with the local model: the object gets a vector at start.
    const local = await makeTestBoard({ ...LOCAL, DATABASE_URL: `sqlite:${db}` });
    await local.startBackground();
    await local.worker!.stop();
    await local.worker!.drain();
    expect(ids(await local.json('GET', '/search?q=connections%20to%20postgres&mode=semantic'))).toEqual([o.id]);
    await local.close();
    // And with another model, it is queued again and embedded by that one.
    const remote = await makeTestBoard({ EMBEDDINGS: 'openai', EMBEDDINGS_URL: server.url, DATABASE_URL: `sqlite:${db}` });
    try {
      await remote.startBackground();
      await remote.worker!.stop();
      await remote.worker!.drain();
      expect(server.calls.flatMap((c) => c.input).some((t) => t.includes('connection pool is exhausted'))).toBe(true);
      expect(await remote.services.store.embeddings.size()).toBe(0);
      expect(ids(await remote.json('GET', '/search?q=database%20connection&mode=semantic'))).toEqual([o.id]);
    } finally {
      await remote.dispose();
      await local.dispose();
      await first.dispose();
    }
  });
});
