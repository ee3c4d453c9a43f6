/**
 * `npm run bench:search`: import throughput, embedding throughput (objects/s), search latency
 * (p50/p95, lexical vs hybrid), an instance's memory and the semantic leg's recall at 10k and
 * 100k imported objects (BENCH_SIZES for others, 1,000,000 say), with the offline model.
 * Each size is built in one child process and searched in another, started fresh on the file
 * as an instance would be, so each RSS is that of its own work. Queries go through the app
 * in-process (no socket), so the figures are search cost.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { buildBoard, openEmbedder, type Board$ } from '../compose.js';
import { loadConfig, type Config } from '../config.js';
import { SqliteScanVectors } from '../store/sqlite/sqlite-vectors.js';
import { LISTS } from '../store/vector-lists.js';
import { createLogger } from '../log.js';
import { BUNDLED_MODEL, PACKAGE_ROOT } from '../paths.js';
import { SERVE_NODE_FLAGS } from '../cli/serve-flags.js';
import { importNdjson } from '../transfer/ndjson-import.js';
import { writeSection } from './sections.js';
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

/**
 * Recall@10 of the board's semantic leg (as the searcher asks it: all candidates, the best ten
 * kept) against the exact nearest ten, from the store's own exact scan (SQLITE_VECTORS=scan)
 * over the same file.
 */
async function semanticRecall(board: Board$, config: Config, path: string, queries: string[]): Promise<number> {
  const embedder = openEmbedder(config)!;
  const db = new Database(path, { readonly: true });
  sqliteVec.load(db);
  const exact = new SqliteScanVectors((text) => db.prepare(text));
  const live = { now: board.services.clock.now(), disputeMinContradictions: config.limits.disputeMinContradictions };
  let found = 0;
  for (const q of queries) {
    const [vector] = await embedder.embed([q]);
    const ask = { live, vector: vector!, model: embedder.model, limit: config.limits.search.candidates };
    const want = (await exact.nearest({ ...ask, limit: 10 })).map((h) => h.id);
    const got = new Set((await board.services.store.search.semantic(ask)).slice(0, 10).map((h) => h.id));
    found += want.filter((id) => got.has(id)).length;
  }
  db.close();
  await embedder.close?.();
  return found / (queries.length * 10);
}

const configFor = (dir: string) =>
  loadConfig({
    DATABASE_URL: `sqlite:${join(dir, 'b.db')}`,
    EMBEDDINGS: 'local',
    EMBEDDINGS_MODEL: MODEL,
    EMBEDDINGS_BATCH: '128',
    RATE_LIMIT_READS: '0',
    SEMANTIC_BUDGET_MS: '5000',
  });

const MiB = (bytes: number) => Math.round(bytes / 2 ** 20);

/** In its own process: imports `n` objects into a new file in `dir` and embeds them. */
async function build(n: number, dir: string) {
  const config = configFor(dir);
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
 * In a fresh process, as an instance started on that file: search latency, the process's RSS
 * after the searches (the vectors and the model loaded), and the semantic leg's recall.
 */
async function search(dir: string) {
  const config = configFor(dir);
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
    const recall = await semanticRecall(board, config, join(dir, 'b.db'), Array.from({ length: RECALL_QUERIES }, (_, i) => query(i)));
    return { latency, rss, recall, approximate: config.database.memoryIndex };
  } finally {
    await board.close();
  }
}

/** In its own process: what the embedding model adds to a process's RSS, loaded and one query embedded. */
async function model() {
  const before = process.memoryUsage().rss;
  const embedder = openEmbedder(configFor(tmpdir()))!;
  await embedder.embed(['connection pool exhausted']);
  const rss = process.memoryUsage().rss - before;
  await embedder.close?.();
  return { rss };
}

/** Runs one phase in a child process (`node search.js <phase> <n> <dir>`) and answers what it printed. */
function phase<T>(name: 'build' | 'search' | 'model', n: number, dir: string): T {
  // The instance searching is started as `serve` is: Node's flags change the memory it holds.
  const flags = name === 'search' ? SERVE_NODE_FLAGS : [];
  const out = execFileSync(process.execPath, [...flags, fileURLToPath(import.meta.url), name, String(n), dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 * 2 ** 20 });
  return JSON.parse(out.trim().split('\n').pop()!) as T;
}

/** One size: built in one process, searched in another, so each RSS is that of its own work. */
function measure(n: number, modelRss: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-bench-search-'));
  try {
    const b = phase<Awaited<ReturnType<typeof build>>>('build', n, dir);
    const s = phase<Awaited<ReturnType<typeof search>>>('search', n, dir);
    const size = n.toLocaleString('en');
    process.stdout.write(`${n}: import ${b.importS.toFixed(1)} s, embed ${b.embedded} in ${b.embedS.toFixed(1)} s, RSS ${MiB(s.rss)} MiB, recall@10 ${s.recall.toFixed(3)}\n`);
    return [
      `| ${size} | import | ${Math.round(n / b.importS).toLocaleString('en')} objects/s (${b.importS.toFixed(1)} s; RSS ${MiB(b.rssAfterImport)} MiB after) |`,
      `| ${size} | embed | ${Math.round(b.embedded / b.embedS).toLocaleString('en')} objects/s (${b.embedS.toFixed(1)} s) |`,
      `| ${size} | serve | RSS ${MiB(s.rss)} MiB: a fresh instance on the file after the searches below, vectors and model loaded; ${MiB(s.rss - modelRss)} MiB without the model |`,
      `| ${size} | semantic recall@10 | ${s.recall.toFixed(3)} against the exact scan (${RECALL_QUERIES} queries; ${n >= s.approximate.approximateFrom ? `approximate index, ${s.approximate.probes} of ${LISTS} lists probed` : 'every vector scored'}) |`,
      ...(['lexical', 'hybrid'] as const).map((mode) => `| ${size} | ${mode} | ${s.latency[mode]!.p50.toFixed(1)} | ${s.latency[mode]!.p95.toFixed(1)} |`),
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const modelRss = phase<Awaited<ReturnType<typeof model>>>('model', 0, tmpdir()).rss;
  const sections: { size: number; text: string }[] = [];
  for (const n of SIZES) sections.push({ size: n, text: measure(n, modelRss) });
  const through = sections.map((s) => s.text.split('\n').slice(0, 4).join('\n')).join('\n');
  const latency = sections.map((s) => s.text.split('\n').slice(4).join('\n')).join('\n');
  const defaults = loadConfig({}).limits.search;
  const md = `## Search and embedding

Produced by \`npm run bench:search\` (src/bench/search.ts) on ${new Date().toISOString().slice(0, 10)}; ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node.js ${process.version}.
Objects: two sentences of 12–30 words from a ${VOCABULARY.length}-word technical vocabulary, 10 topics × 50 areas, ages 0–59 days; imported through the NDJSON import code, then embedded with \`${MODEL.split('/').pop()}\` (batches of 128). Queries: ${QUERIES} per mode, 2–4 vocabulary words each, sent through the app in-process (no socket), default limit 10; each leg ranks up to ${defaults.candidates} candidates, the lexical one from the newest ${defaults.lexicalWindow} matches (\`SEARCH_LEXICAL_WINDOW\`), the semantic one from the vectors held in process memory (\`SQLITE_VECTORS=memory\`: a byte per dimension, the approximate index from \`VECTORS_APPROXIMATE_FROM\`). Recall@10: the semantic leg's ten nearest against sqlite-vec's exact scan of the float32 vectors in the same file. Without the model: the instance's RSS less what loading the model and embedding one query adds to a process of its own (${MiB(modelRss)} MiB).

| objects | step | figures |
|---|---|---|
${through}

| objects | mode | p50 ms | p95 ms |
|---|---|---:|---:|
${latency}
`;
  writeSection(join(PACKAGE_ROOT, 'BENCHMARKS.md'), 'search', md);
  process.stdout.write('written to BENCHMARKS.md\n');
}

const [phaseName, size, phaseDir] = process.argv.slice(2);
const run = phaseName === 'build' ? build(Number(size), phaseDir!) : phaseName === 'search' ? search(phaseDir!) : phaseName === 'model' ? model() : null;
(run ? run.then((r) => process.stdout.write(`${JSON.stringify(r)}\n`)) : main()).then(
  // The board's timers (embed worker, upkeep) are closed; anything left must not hold a phase open.
  () => (run ? process.exit(0) : undefined),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
