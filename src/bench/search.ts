/**
 * `npm run bench:search`: import throughput, embedding throughput (objects/s), search latency
 * (p50/p95, lexical vs hybrid), an instance's memory and the semantic leg's recall at 10k and
 * 100k imported objects (BENCH_SIZES for others, 1,000,000 say), with the offline model, on
 * SQLite and, when its server answers, PostgreSQL (BENCH_STORES for one). Each size is built
 * in one child process and, once every size is built, searched in another, started fresh on the
 * store as an instance would be, so each RSS is that of its own work. Queries go through the
 * app in-process (no socket), so the figures are search cost.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import pg from 'pg';
import * as sqliteVec from 'sqlite-vec';
import { buildBoard, openEmbedder, type Board$ } from '../compose.js';
import { loadConfig, type Config } from '../config.js';
import type { LiveCriteria } from '../domain/model.js';
import { SqliteScanVectors } from '../store/sqlite/sqlite-vectors.js';
import { LISTS } from '../store/vector-lists.js';
import { createLogger } from '../log.js';
import { BUNDLED_MODEL, PACKAGE_ROOT } from '../paths.js';
import { SERVE_NODE_FLAGS } from '../cli/serve-flags.js';
import { importNdjson } from '../service/transfer/ndjson-import.js';
import { benchPostgres, benchSchema, type StoreSetup } from './child.js';
import { commit, writeSection } from './sections.js';
import { BENCH } from './settings.js';
import { sentence, VOCABULARY } from './vocabulary.js';

const MODEL = BENCH.BENCH_MODEL ?? BUNDLED_MODEL;
const SIZES = BENCH.BENCH_SIZES;
const QUERIES = BENCH.BENCH_QUERIES;
/** 100: on 30, the figure moved by about 0.01 with the queries picked (0.947 on the first 30 at 1,000,000, 0.960 on 100). */
const RECALL_QUERIES = 100;
const TOPICS = ['postgres', 'redis', 'sqlite', 'kubernetes', 'node', 'python', 'mcp', 'auth', 'docker', 'terraform'];

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

function* objects(n: number, now: number): Generator<string> {
  for (let i = 0; i < n; i++) {
    yield `${JSON.stringify({
      type: i % 10 === 0 ? 'request' : 'finding',
      content: `${sentence(i)}. ${sentence(i + 7_919)}.`,
      topics: [TOPICS[i % TOPICS.length], `area-${i % 50}`],
      created_at: new Date(now - (i % 60) * 86_400_000).toISOString(),
      expires_at: new Date(now + 400 * 86_400_000).toISOString(),
      verification_count: i % 7,
      contradiction_count: i % 11 === 0 ? 1 : 0,
    })}\n`;
  }
}

/** The ids of the exact nearest live objects to each query, ten each, from the store's own float32 vectors. */
type ExactNearest = (live: LiveCriteria, model: string, vectors: Float32Array[]) => Promise<string[][]>;

/** SQLite: sqlite-vec's exact scan (SQLITE_VECTORS=scan) over the same file. */
async function sqliteExact(url: string): Promise<{ nearest: ExactNearest; close(): Promise<void> }> {
  const db = new Database(url.slice('sqlite:'.length), { readonly: true });
  sqliteVec.load(db);
  const exact = new SqliteScanVectors((text) => db.prepare(text));
  return {
    nearest: async (live, model, vectors) => Promise.all(vectors.map(async (vector) => (await exact.nearest({ live, vector, model, limit: 10 })).map((h) => h.id))),
    close: async () => void db.close(),
  };
}

/** PostgreSQL without pgvector keeps `real[]` vectors: every live one scored here, as float64 cosine. */
async function pgExact(url: string): Promise<{ nearest: ExactNearest; close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    nearest: async (live, model, vectors) => {
      const { rows } = await client.query<{ id: string; embedding: number[] }>(
        'SELECT o.id, v.embedding FROM object_vectors v JOIN objects o ON o.seq = v.seq WHERE v.model = $1 AND o.live_until > $2',
        [model, live.now],
      );
      const norms = rows.map((r) => Math.sqrt(r.embedding.reduce((n, x) => n + x * x, 0)) || 1);
      return vectors.map((q) => {
        const qn = Math.sqrt(q.reduce((n, x) => n + x * x, 0)) || 1;
        // The ten best so far, best first: at a million rows, sorting them all per query took longest.
        const best: { id: string; sim: number }[] = [];
        rows.forEach((r, i) => {
          let dot = 0;
          for (let d = 0; d < q.length; d++) dot += q[d]! * r.embedding[d]!;
          const sim = dot / (qn * norms[i]!);
          if (best.length === 10 && sim <= best[9]!.sim) return;
          const at = best.findIndex((b) => b.sim < sim);
          best.splice(at < 0 ? best.length : at, 0, { id: r.id, sim });
          best.length = Math.min(best.length, 10);
        });
        return best.map((b) => b.id);
      });
    },
    close: () => client.end(),
  };
}

/**
 * Recall@10 of the board's semantic leg (as the searcher asks it: all candidates, the best ten
 * kept) against the exact nearest ten, from the store's own exact scan of the same objects.
 */
async function semanticRecall(board: Board$, config: Config, url: string, queries: string[]): Promise<number> {
  const embedder = openEmbedder(config)!;
  const exact = url.startsWith('sqlite:') ? await sqliteExact(url) : await pgExact(url);
  const live = { now: board.services.clock.now(), disputeMinContradictions: config.limits.disputeMinContradictions };
  const vectors = (await embedder.embed(queries)).map((v) => v!);
  const wanted = await exact.nearest(live, embedder.model, vectors);
  let found = 0;
  for (const [i, vector] of vectors.entries()) {
    const ask = { live, vector, model: embedder.model, limit: config.limits.search.candidates };
    const got = new Set((await board.services.store.search.semantic(ask)).slice(0, 10).map((h) => h.id));
    found += wanted[i]!.filter((id) => got.has(id)).length;
  }
  await exact.close();
  await embedder.close?.();
  return found / (queries.length * 10);
}

/** A store's settings (its DATABASE_URL, and Redis's for PostgreSQL) with the bench's own. */
type StoreEnv = Record<string, string>;

const configFor = (store: StoreEnv) =>
  loadConfig({
    ...store,
    EMBEDDINGS: 'local',
    EMBEDDINGS_MODEL: MODEL,
    EMBEDDINGS_BATCH: '128',
    RATE_LIMIT_READS: '0',
    SEMANTIC_BUDGET_MS: '5000',
  });

const MiB = (bytes: number) => Math.round(bytes / 2 ** 20);

/** In its own process: imports `n` objects into the empty store and embeds them. */
async function build(n: number, store: StoreEnv) {
  const config = configFor(store);
  const board = await buildBoard(config, createLogger('warn'));
  try {
    const now = board.services.clock.now();
    let t = performance.now();
    await importNdjson(board.services.store, Readable.from(objects(n, now)), { now, limits: config.limits });
    const importS = (performance.now() - t) / 1000;
    const rssAfterImport = process.memoryUsage().rss;
    t = performance.now();
    const embedded = await board.worker!.drain();
    return { importS, rssAfterImport, embedded, embedS: (performance.now() - t) / 1000 };
  } finally {
    await board.close();
  }
}

/**
 * In a fresh process, as an instance started on that store: search latency, the process's RSS
 * after the searches (the vectors and the model loaded), and the semantic leg's recall.
 */
async function search(store: StoreEnv) {
  const config = configFor(store);
  const board = await buildBoard(config, createLogger('warn'));
  try {
    const latency: Record<string, { p50: number; p95: number }> = {};
    const query = (i: number) => Array.from({ length: 2 + (i % 3) }, (_, k) => VOCABULARY[(i * 31 + k * 17) % VOCABULARY.length]).join(' ');
    for (const mode of ['lexical', 'hybrid'] as const) {
      const times: number[] = [];
      for (let i = 0; i < QUERIES; i++) {
        const started = performance.now();
        const res = await board.app.request(`/search?q=${encodeURIComponent(query(i))}&mode=${mode}`);
        await res.arrayBuffer();
        times.push(performance.now() - started);
      }
      latency[mode] = { p50: percentile(times, 50), p95: percentile(times, 95) };
    }
    const rss = process.memoryUsage().rss;
    const recall = await semanticRecall(board, config, store.DATABASE_URL!, Array.from({ length: RECALL_QUERIES }, (_, i) => query(i)));
    return { latency, rss, recall, approximate: config.database.memoryIndex };
  } finally {
    await board.close();
  }
}

/** In its own process: what the embedding model adds to a process's RSS, loaded and one query embedded. */
async function model() {
  const before = process.memoryUsage().rss;
  const embedder = openEmbedder(configFor({ DATABASE_URL: `sqlite:${join(tmpdir(), 'unused.db')}` }))!;
  await embedder.embed(['connection pool exhausted']);
  const rss = process.memoryUsage().rss - before;
  await embedder.close?.();
  return { rss };
}

/** Runs one phase in a child process (`node search.js <phase> <n> <store settings as JSON>`) and answers what it printed. */
function phase<T>(name: 'build' | 'search' | 'model', n: number, store: StoreEnv): T {
  // The instance searching is started as `serve` is: Node's flags change the memory it holds.
  const flags = name === 'search' ? SERVE_NODE_FLAGS : [];
  const out = execFileSync(process.execPath, [...flags, fileURLToPath(import.meta.url), name, String(n), JSON.stringify(store)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 * 2 ** 20 });
  return JSON.parse(out.trim().split('\n').pop()!) as T;
}

/** A store to measure at each size: an empty one made for the size, and dropped after. */
interface Store {
  name: string;
  fresh(): Promise<Omit<StoreSetup, 'name'>>;
  close(): Promise<void>;
}

const sqliteStore: Store = {
  name: 'SQLite',
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), 'agentboard-bench-search-'));
    return { env: { DATABASE_URL: `sqlite:${join(dir, 'b.db')}` }, steady: async () => undefined, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
  },
  close: async () => undefined,
};

/** PostgreSQL at BENCH_DATABASE_URL, a schema per size (analyzed once built); null when it does not answer. */
async function postgresStore(): Promise<Store | null> {
  const admin = await benchPostgres();
  return admin && { name: 'PostgreSQL', fresh: () => benchSchema(admin, 'ab_bench_search'), close: () => admin.end() };
}

/**
 * Every size on one store: each built in a process of its own, then, once all are built, each
 * searched in another, one size right after the other, so each RSS is that of its own work. The
 * machine's speed drifts by a fifth and more within minutes (run.ts), and building a million
 * objects takes ten: searched each after its own build, two sizes' latencies were measured that
 * far apart, and a drift between them fell on one size alone, in the ratio the goals compare.
 */
async function measure(store: Store, sizes: readonly number[], modelRss: number): Promise<{ through: string; latency: string }[]> {
  const built: { n: number; target: Omit<StoreSetup, 'name'>; b?: Awaited<ReturnType<typeof build>> }[] = [];
  try {
    for (const n of sizes) {
      const size: (typeof built)[number] = { n, target: await store.fresh() };
      built.push(size);
      size.b = phase<Awaited<ReturnType<typeof build>>>('build', n, size.target.env);
      await size.target.steady();
    }
    return built.map(({ n, target, b }) => {
      const s = phase<Awaited<ReturnType<typeof search>>>('search', n, target.env);
      const at = n.toLocaleString('en');
      process.stdout.write(`${store.name} ${n}: import ${b!.importS.toFixed(1)} s, embed ${b!.embedded} in ${b!.embedS.toFixed(1)} s, RSS ${MiB(s.rss)} MiB, recall@10 ${s.recall.toFixed(3)}, lexical p50 ${s.latency.lexical!.p50.toFixed(1)} ms, hybrid p50 ${s.latency.hybrid!.p50.toFixed(1)} ms\n`);
      return {
        through: [
          `| ${at} | import | ${Math.round(n / b!.importS).toLocaleString('en')} objects/s (${b!.importS.toFixed(1)} s; RSS ${MiB(b!.rssAfterImport)} MiB after) |`,
          `| ${at} | embed | ${Math.round(b!.embedded / b!.embedS).toLocaleString('en')} objects/s (${b!.embedS.toFixed(1)} s) |`,
          `| ${at} | serve | RSS ${MiB(s.rss)} MiB: a fresh instance on the store after the searches below, vectors and model loaded; ${MiB(s.rss - modelRss)} MiB without the model |`,
          `| ${at} | semantic recall@10 | ${s.recall.toFixed(3)} against the exact scan (${RECALL_QUERIES} queries; ${n >= s.approximate.approximateFrom ? `approximate index, ${s.approximate.probes} of ${LISTS} lists probed` : 'every vector scored'}) |`,
        ].join('\n'),
        latency: (['lexical', 'hybrid'] as const).map((mode) => `| ${at} | ${mode} | ${s.latency[mode]!.p50.toFixed(1)} | ${s.latency[mode]!.p95.toFixed(1)} |`).join('\n'),
      };
    });
  } finally {
    for (const { target } of built) await target.dispose();
  }
}

/** Each store's figures in a section of their own, so that a run of one store (BENCH_STORES) keeps the other's. */
function section(store: Store, sizes: { through: string; latency: string }[], modelRss: number): string {
  const defaults = loadConfig({}).limits.search;
  const kept =
    store.name === 'PostgreSQL'
      ? 'PostgreSQL 15 at BENCH_DATABASE_URL, as the machine runs it (its defaults: 128 MB of shared buffers), a schema per size, its tables analyzed once built, as autovacuum would; without pgvector, the vectors are held in process memory, as on SQLite'
      : 'SQLite, a file per size';
  const exact = store.name === 'PostgreSQL' ? 'every `real[]` vector scored in double precision' : "sqlite-vec's scan of the same file";
  return `## Search and embedding: ${store.name}

Produced by \`npm run bench:search\` (src/bench/search.ts) on ${new Date().toISOString().slice(0, 10)}, commit ${commit()}; ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node.js ${process.version}.
Store: ${kept}. Objects: two sentences of 12–30 words from a ${VOCABULARY.length}-word technical vocabulary, 10 topics × 50 areas, ages 0–59 days; imported through the NDJSON import code, then embedded with \`${MODEL.split('/').pop()}\` (batches of 128). Queries: ${QUERIES} per mode, 2–4 vocabulary words each, sent through the app in-process (no socket) by an instance started fresh on the store, each size's right after the last's once every size is built (a ratio of two sizes' latencies is then measured minutes apart, not the length of a build), default limit 10; each leg ranks up to ${defaults.candidates} candidates, the lexical one from the newest ${defaults.lexicalWindow} matches (\`SEARCH_LEXICAL_WINDOW\`), the semantic one from the vectors held in process memory (a byte per dimension, the approximate index from \`VECTORS_APPROXIMATE_FROM\`). Recall@10: the semantic leg's ten nearest against the exact ten nearest live objects by cosine over the float32 vectors the store keeps (${exact}). Without the model: the instance's RSS less what loading the model and embedding one query adds to a process of its own (${MiB(modelRss)} MiB).

| objects | step | figures |
|---|---|---|
${sizes.map((s) => s.through).join('\n')}

| objects | mode | p50 ms | p95 ms |
|---|---|---:|---:|
${sizes.map((s) => s.latency).join('\n')}
`;
}

async function main(): Promise<void> {
  const only = BENCH.BENCH_STORES?.map((s) => s.toLowerCase());
  const wanted = (name: string) => !only || only.includes(name.toLowerCase());
  const stores = [...(wanted('sqlite') ? [sqliteStore] : []), ...(wanted('postgresql') ? [await postgresStore()].filter((s): s is Store => s !== null) : [])];
  const modelRss = phase<Awaited<ReturnType<typeof model>>>('model', 0, {}).rss;
  try {
    for (const store of stores) {
      const sizes = await measure(store, SIZES, modelRss);
      writeSection(join(PACKAGE_ROOT, 'BENCHMARKS.md'), `search-${store.name.toLowerCase()}`, section(store, sizes, modelRss));
    }
  } finally {
    for (const store of stores) await store.close();
  }
  process.stdout.write('written to BENCHMARKS.md\n');
}

const [phaseName, size, phaseStore] = process.argv.slice(2);
const storeOf = () => JSON.parse(phaseStore!) as StoreEnv;
const run = phaseName === 'build' ? build(Number(size), storeOf()) : phaseName === 'search' ? search(storeOf()) : phaseName === 'model' ? model() : null;
(run ? run.then((r) => process.stdout.write(`${JSON.stringify(r)}\n`)) : main()).then(
  // The board's timers (embed worker, upkeep) are closed; anything left must not hold a phase open.
  () => (run ? process.exit(0) : undefined),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
