import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbedder } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { LocalEmbedder } from '../../src/embed/local-embedder.js';
import { OpenAiEmbedder } from '../../src/embed/openai-embedder.js';
import { ThreadedEmbedder } from '../../src/embed/threaded-embedder.js';
import { startEmbeddingsServer, type EmbeddingsServer } from '../helpers/embeddings-server.js';
import { POTION } from '../helpers/paths.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

describe('LocalEmbedder (transformers.js, offline potion-base-2M)', () => {
  const e = new LocalEmbedder(POTION, '/nonexistent-models-dir');

  it('names its model and gives unit vectors, closer for related texts', async () => {
    expect(e.model).toBe('local:potion-base-2M');
    const [pool, postgres, bread] = (await e.embed([
      'the database connection pool is exhausted',
      'too many open connections to postgres',
      'how to bake sourdough bread',
    ])) as Float32Array[];
    expect(pool!.length).toBe(64);
    expect(norm(pool!)).toBeCloseTo(1, 5);
    // The figures PROVENANCE.md reports for this model.
    expect(dot(pool!, postgres!)).toBeCloseTo(0.2207, 3);
    expect(dot(pool!, bread!)).toBeLessThan(0.05);
  });

  it('loads with more threads per inference (EMBEDDINGS_THREADS) and answers alike', async () => {
    const texts = ['the database connection pool is exhausted', 'how to bake sourdough bread'];
    const [one, two] = [await e.embed(texts), await new LocalEmbedder(POTION, '/nonexistent-models-dir', 2).embed(texts)];
    one.forEach((v, i) => expect(Array.from(two[i]!)).toEqual(Array.from(v!).map((x) => expect.closeTo(x, 6))));
  });

  it("pools as transformers.js's own pipeline does, and a text's vector does not depend on the batch's padding", async () => {
    const texts = ['database', 'the database connection pool is exhausted after many idle clients were left open by a worker that never released them', 'bread'];
    const mine = (await e.embed(texts)) as Float32Array[];
    const { pipeline, env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.localModelPath = `${dirname(POTION)}/`;
    const theirs = await (await pipeline('feature-extraction', basename(POTION), { dtype: 'fp32' }))(texts, { pooling: 'mean', normalize: true });
    texts.forEach((_, i) => expect(Array.from(mine[i]!)).toEqual(Array.from(theirs.data.slice(i * 64, (i + 1) * 64) as Float32Array).map((x) => expect.closeTo(x, 6))));
    // Alone, the short texts have no padding; in the batch, they are padded to the long one.
    for (const i of [0, 2]) expect(Array.from((await e.embed([texts[i]!]))[0]!)).toEqual(Array.from(mine[i]!).map((x) => expect.closeTo(x, 6)));
  });

  it('answers null for empty or all-unknown text instead of NaN', async () => {
    const [empty, snowmen, word] = await e.embed(['', '☃☃', 'database']);
    expect(empty).toBeNull();
    expect(snowmen).toBeNull();
    expect(word).toBeInstanceOf(Float32Array);
  });

  it('rejects when the model cannot be loaded, and keeps rejecting fast during the cool-down', async () => {
    const missing = new LocalEmbedder('no-such-org/no-such-model-offline', '/tmp/agentboard-no-models');
    await expect(missing.embed(['x'])).rejects.toThrow();
    const started = Date.now();
    await expect(missing.embed(['x'])).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('ThreadedEmbedder (the local model on a thread of its own)', () => {
  const opened: ThreadedEmbedder[] = [];
  const threaded = (model = POTION) => {
    const t = new ThreadedEmbedder(model, '/nonexistent-models-dir');
    opened.push(t);
    return t;
  };
  afterEach(async () => {
    for (const t of opened.splice(0)) await t.close();
  });

  it('names the model as the in-process embedder does and answers the same vectors, nulls included', async () => {
    const local = new LocalEmbedder(POTION, '/nonexistent-models-dir');
    const t = threaded();
    expect([t.model, t.source, t.remedy]).toEqual([local.model, local.source, local.remedy]);
    const texts = ['connection pool exhausted', '', '☃☃', 'Redis eviction under memory pressure'];
    const [mine, theirs] = await Promise.all([t.embed(texts), local.embed(texts)]);
    expect(mine).toEqual(theirs);
    expect(mine[0]).toBeInstanceOf(Float32Array);
    expect(mine[1]).toBeNull();
  });

  it('answers concurrent requests each with its own vectors', async () => {
    const t = threaded();
    const texts = Array.from({ length: 12 }, (_, i) => `request number ${i} about database ${i % 3 === 0 ? 'locks' : 'caches'}`);
    const [alone, together] = [await Promise.all(texts.map((x) => t.embed([x]))), await t.embed(texts)];
    expect(alone.map(([v]) => v)).toEqual(together);
  });

  it("passes on the thread's failure to load the model", async () => {
    await expect(threaded('no-such-org/no-such-model-offline').embed(['x'])).rejects.toThrow();
  });

  it('fails what it owes when closed, and starts a thread again on the next request', async () => {
    const t = threaded();
    await t.embed(['warm']);
    const owed = t.embed(['owed when closed']);
    await t.close();
    await expect(owed).rejects.toThrow(/thread ended/);
    expect((await t.embed(['again']))[0]).toBeInstanceOf(Float32Array);
  });
});

describe('openEmbedder: which thread a local model runs on (EMBEDDINGS_OWN_THREAD)', () => {
  const PG = 'postgres://postgres@127.0.0.1:5432/test';
  const opened: { close?: () => Promise<void> }[] = [];
  const open = (env: Record<string, string>) => {
    const e = openEmbedder(loadConfig({ EMBEDDINGS_MODEL: POTION, MODELS_DIR: '/nonexistent-models-dir', ...env }))!;
    opened.push(e);
    return e;
  };
  afterEach(async () => {
    for (const e of opened.splice(0)) await e.close?.();
  });

  it('auto: a thread of its own on SQLite, whose request thread also runs the queries', () => {
    expect(open({})).toBeInstanceOf(ThreadedEmbedder);
  });

  it('auto: a static lookup on the request thread on PostgreSQL, loaded as it opens, with the same vectors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ab-model-'));
    let here;
    try {
      cpSync(POTION, dir, { recursive: true });
      here = open({ DATABASE_URL: PG, EMBEDDINGS_MODEL: dir });
    } finally {
      // Gone before the first text: only a model read as it opened can answer.
      rmSync(dir, { recursive: true, force: true });
    }
    expect(here).toBeInstanceOf(LocalEmbedder);
    const texts = ['the database connection pool is exhausted', '', 'how to bake sourdough bread'];
    const threaded = open({ DATABASE_URL: PG, EMBEDDINGS_OWN_THREAD: 'true' });
    expect(threaded).toBeInstanceOf(ThreadedEmbedder);
    expect(await here.embed(texts)).toEqual(await threaded.embed(texts));
  });

  it('auto: any other model keeps its own thread on PostgreSQL (a hub id, or a folder that is no static lookup)', () => {
    expect(open({ DATABASE_URL: PG, EMBEDDINGS_MODEL: 'Xenova/all-MiniLM-L6-v2' })).toBeInstanceOf(ThreadedEmbedder);
    const dir = mkdtempSync(join(tmpdir(), 'ab-model-'));
    try {
      copyFileSync(join(POTION, 'tokenizer.json'), join(dir, 'tokenizer.json'));
      mkdirSync(join(dir, 'onnx'));
      writeFileSync(join(dir, 'onnx', 'model.onnx'), Buffer.from('not the static lookup graph'));
      expect(open({ DATABASE_URL: PG, EMBEDDINGS_MODEL: dir })).toBeInstanceOf(ThreadedEmbedder);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('true and false decide on either store', () => {
    expect(open({ DATABASE_URL: PG, EMBEDDINGS_OWN_THREAD: 'true' })).toBeInstanceOf(ThreadedEmbedder);
    expect(open({ EMBEDDINGS_OWN_THREAD: 'false' })).toBeInstanceOf(LocalEmbedder);
  });
});

describe('OpenAiEmbedder (OpenAI-compatible /v1/embeddings)', () => {
  let server: EmbeddingsServer;
  const make = (o: Partial<ConstructorParameters<typeof OpenAiEmbedder>[0]> = {}) =>
    new OpenAiEmbedder({ url: server.url, apiKey: 'k-123', model: 'text-embedding-3-small', batchSize: 2, timeoutMs: 500, retries: 2, backoffMs: 5, ...o });
  beforeEach(async () => {
    server = await startEmbeddingsServer();
  });
  afterEach(async () => server.close());

  it('sends batches with the key and model, and returns unit vectors in input order', async () => {
    const out = await make().embed(['abc', 'zzz', 'aab', 'ccc', 'b']);
    expect(server.calls.map((c) => c.input)).toEqual([['abc', 'zzz'], ['aab', 'ccc'], ['b']]);
    expect(server.calls[0]).toMatchObject({ auth: 'Bearer k-123', model: 'text-embedding-3-small' });
    expect(out).toHaveLength(5);
    expect(norm(out[0]!)).toBeCloseTo(1, 5);
    expect(out[1]![25]).toBeCloseTo(1, 5);
    expect(make().model).toBe('openai:text-embedding-3-small');
  });

  it('places vectors by their index even when the API answers out of order', async () => {
    server.script = ['shuffle'];
    const [a, z] = await make().embed(['aaa', 'zzz']);
    expect(a![0]).toBeCloseTo(1, 5);
    expect(z![25]).toBeCloseTo(1, 5);
  });

  it('skips empty texts without sending them', async () => {
    const out = await make().embed(['', '  ', 'abc']);
    expect(out[0]).toBeNull();
    expect(out[1]).toBeNull();
    expect(server.calls.map((c) => c.input)).toEqual([['abc']]);
  });

  it('retries 5xx and 429 with backoff, then succeeds', async () => {
    server.script = ['fail-500', 'fail-429'];
    const [v] = await make().embed(['abc']);
    expect(v).toBeInstanceOf(Float32Array);
    expect(server.calls).toHaveLength(3);
  });

  it('gives up after its retries', async () => {
    server.script = ['fail-500', 'fail-500', 'fail-500', 'fail-500'];
    await expect(make().embed(['abc'])).rejects.toThrow(/500/);
    expect(server.calls).toHaveLength(3);
  });

  it('does not retry a client error', async () => {
    server.script = ['fail-400'];
    await expect(make().embed(['abc'])).rejects.toThrow(/400/);
    expect(server.calls).toHaveLength(1);
  });

  it('times out a call that never answers', async () => {
    server.script = ['hang', 'hang', 'hang'];
    const started = Date.now();
    await expect(make({ timeoutMs: 150, retries: 1 }).embed(['abc'])).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('accepts a base URL with or without /v1', async () => {
    await make({ url: `${server.url}/v1` }).embed(['abc']);
    await make({ url: `${server.url}/v1/embeddings` }).embed(['abc']);
    expect(server.calls).toHaveLength(2);
  });
});
