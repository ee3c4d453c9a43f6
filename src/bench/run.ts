/**
 * `npm run bench`: every operation of the board measured beside its floor, in one run, on each
 * store, and written to BENCHMARKS.md with the goals and whether they are met.
 *
 * The board, each floor (floor-server.ts) and autocannon (this process) are separate
 * processes. A row's board and floor are measured one after the other with nothing else
 * working (the search floor runs while the board waits idle, so both search the same
 * objects); the board has finished embedding what it was seeded with before any row starts.
 * Every number is measured here; nothing is asserted.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { PACKAGE_ROOT } from '../paths.js';
import { startChild, storeSetups } from './child.js';
import { writeSection } from './sections.js';
import { sentence, VOCABULARY } from './vocabulary.js';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 6);
const READ_CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WRITE_CONNECTIONS = Number(process.env.BENCH_WRITE_CONNECTIONS ?? 16);
const SEED = Number(process.env.BENCH_SEED ?? 4000);
const QUERIES = 40;

const BOARD = join(PACKAGE_ROOT, 'dist/cli/main.js');
const FLOOR = join(PACKAGE_ROOT, 'dist/bench/floor-server.js');

/** Forty two-word queries from the seed's vocabulary: each matches a realistic few per cent of it. */
const queries = Array.from({ length: QUERIES }, (_, i) => `${VOCABULARY[(i * 7 + 3) % VOCABULARY.length]} ${VOCABULARY[(i * 13 + 11) % VOCABULARY.length]}`);
/**
 * Two-word queries, none repeated (160 × 159 of them, more than a row sends): each is a miss for
 * the board's cache of search candidates, so these rows measure the engine's work per search.
 */
const newQueries = Array.from({ length: VOCABULARY.length * (VOCABULARY.length - 1) }, (_, i) => {
  const a = i % VOCABULARY.length;
  return `${VOCABULARY[a]} ${VOCABULARY[(a + 1 + Math.floor(i / VOCABULARY.length)) % VOCABULARY.length]}`;
});
const searchPaths = (mode: string, qs = queries) => qs.map((q) => `/search?q=${encodeURIComponent(q)}&mode=${mode}`);

interface Load {
  paths: string[];
  method: 'GET' | 'POST';
  connections: number;
}

let published = 0;

/** Runs autocannon over `paths` in turn; a POST sends a distinct body per request, so each is a real insert. */
function load(url: string, l: Load): Promise<autocannon.Result> {
  let next = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: l.connections,
        duration: DURATION_S,
        headers: { 'content-type': 'application/json' },
        requests: [
          {
            method: l.method,
            setupRequest: (req) => ({
              ...req,
              path: l.paths[next++ % l.paths.length]!,
              ...(l.method === 'POST' ? { body: JSON.stringify({ content: `bench publish ${process.pid} ${published++} ${sentence(published)}`, topics: ['bench'] }) } : {}),
            }),
          },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

interface Row {
  operation: string;
  board: autocannon.Result;
  floorName: string;
  floor: autocannon.Result;
  goal: number;
  /** Compared by p99 / p50 instead of throughput. */
  tail?: boolean;
}

async function seed(url: string): Promise<string> {
  const topics = ['postgres', 'redis', 'sqlite', 'kubernetes', 'node', 'python', 'mcp', 'auth'];
  let firstId = '';
  let i = 0;
  const worker = async () => {
    while (i < SEED) {
      const n = i++;
      const t = topics[n % topics.length]!;
      const r = await fetch(`${url}/findings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: `${sentence(n)} (${t} note ${n})`, topics: [t, `area-${n % 20}`] }),
      });
      const j = (await r.json()) as { object?: { id: string } };
      if (n === 0) firstId = j.object!.id;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return firstId;
}

/** Waits until the board has embedded everything (its metrics say so): embedding competes for the CPU. */
async function embedded(url: string): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    const text = await (await fetch(`${url}/metrics`)).text();
    const depth = /^agentboard_embed_queue_depth (\d+)/m.exec(text);
    if (!depth || depth[1] === '0') return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function measure(label: string, url: string, l: Load): Promise<autocannon.Result> {
  process.stdout.write(`  ${label}…`);
  const r = await load(url, l);
  process.stdout.write(` ${Math.round(r.requests.average)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms\n`);
  return r;
}

async function withChild<T>(args: string[], env: Record<string, string>, fn: (url: string) => Promise<T>): Promise<T> {
  const { child, url } = await startChild(args, env);
  try {
    return await fn(url);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

async function measureStore(name: string, env: Record<string, string>, dir: string, dbTarget: string): Promise<Row[]> {
  process.stdout.write(`— ${name}\n`);
  const boardEnv = {
    PORT: '0',
    RATE_LIMIT_READS: '0',
    RATE_LIMIT_ANON_WRITES: '0',
    RATE_LIMIT_SIGNED_WRITES: '0',
    REGISTRY_URL: 'off',
    // info, as in production: one log line per request is part of the board's cost.
    LOG_LEVEL: 'info',
    ...env,
  };
  const isPg = name === 'PostgreSQL';
  const reads = (paths: string[]): Load => ({ paths, method: 'GET', connections: READ_CONNECTIONS });
  const writes: Load = { paths: ['/findings'], method: 'POST', connections: WRITE_CONNECTIONS };
  const recorded: Record<string, { status: number; contentType: string; body: string }> = {};
  const board = await withChild([BOARD, 'serve'], boardEnv, async (url) => {
    process.stdout.write(`  seeding ${SEED} findings…\n`);
    const firstId = await seed(url);
    await embedded(url);
    const readPaths = { object: `/p/${firstId}`, list: '/findings?limit=20' };
    for (const p of Object.values(readPaths)) {
      const res = await fetch(url + p);
      recorded[`GET ${p}`] = { status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.text() };
    }
    const out = {
      object: await measure('board GET /p/{id}', url, reads([readPaths.object])),
      list: await measure('board GET /findings?limit=20', url, reads([readPaths.list])),
      lexical: await measure('board GET /search lexical', url, reads(searchPaths('lexical'))),
      hybrid: await measure('board GET /search hybrid', url, reads(searchPaths('hybrid'))),
      lexicalNew: await measure('board GET /search lexical, every query new', url, reads(searchPaths('lexical', newQueries))),
      hybridNew: await measure('board GET /search hybrid, every query new', url, reads(searchPaths('hybrid', newQueries))),
      // The engine's own query over the same objects the board searched: before the publishes
      // below add thousands more (the board is idle meanwhile).
      ...(await withChild([FLOOR, isPg ? 'pg-search' : 'sqlite-search', dbTarget], {}, async (floorUrl) => ({
        searchFloor: await measure('floor search query', floorUrl, reads(searchPaths('lexical'))),
        searchFloorNew: await measure('floor search query, every query new', floorUrl, reads(searchPaths('lexical', newQueries))),
      }))),
      publish: await measure('board POST /findings', url, writes),
    };
    return { ...out, readPaths };
  });
  const routesFile = join(dir, `routes-${name}.json`);
  writeFileSync(routesFile, JSON.stringify(recorded));
  const bare = await withChild([FLOOR, 'bytes', routesFile], {}, async (url) => ({
    object: await measure('floor GET /p/{id} (same bytes)', url, reads([board.readPaths.object])),
    list: await measure('floor GET /findings (same bytes)', url, reads([board.readPaths.list])),
  }));
  const insertTarget = isPg ? dbTarget : join(dir, 'floor-insert.db');
  const insert = await withChild([FLOOR, isPg ? 'pg-insert' : 'sqlite-insert', insertTarget], {}, (url) => measure('floor insert', url, writes));
  const engine = isPg ? 'bare `pg` query' : 'raw FTS5 query';
  return [
    { operation: 'GET /p/{id}', board: board.object, floorName: 'bare node:http, same bytes', floor: bare.object, goal: 0.5 },
    { operation: 'GET /findings?limit=20', board: board.list, floorName: 'bare node:http, same bytes', floor: bare.list, goal: 0.5 },
    { operation: `GET /search mode=lexical (${QUERIES} queries)`, board: board.lexical, floorName: `${engine} + bare node:http`, floor: board.searchFloor, goal: 0.5 },
    { operation: 'GET /search mode=lexical, tail', board: board.lexical, floorName: 'its own p50', floor: board.lexical, goal: 5, tail: true },
    { operation: `GET /search mode=hybrid (${QUERIES} queries)`, board: board.hybrid, floorName: "the board's lexical search", floor: board.lexical, goal: 0.33 },
    { operation: 'GET /search mode=lexical, every query new', board: board.lexicalNew, floorName: `${engine} + bare node:http, same queries`, floor: board.searchFloorNew, goal: 0.5 },
    { operation: 'GET /search mode=lexical, every query new, tail', board: board.lexicalNew, floorName: 'its own p50', floor: board.lexicalNew, goal: 5, tail: true },
    { operation: 'GET /search mode=hybrid, every query new', board: board.hybridNew, floorName: "the board's lexical search, every query new", floor: board.lexicalNew, goal: 0.33 },
    { operation: `POST /findings (${WRITE_CONNECTIONS} connections)`, board: board.publish, floorName: `bare node:http + one ${isPg ? 'PostgreSQL INSERT (GIN tsvector index)' : 'SQLite INSERT (FTS5 index, WAL, synchronous=NORMAL)'}`, floor: insert, goal: 0.5 },
  ];
}

const rps = (r: autocannon.Result) => Math.round(r.requests.average);
const failures = (r: autocannon.Result) => r.errors + r.non2xx + r.timeouts;

function tableOf(results: { store: string; rows: Row[] }[]): string {
  const lines = [
    '| store | operation | board req/s | board p50 ms | board p99 ms | floor | floor req/s | board / floor | goal | met |',
    '|---|---|---:|---:|---:|---|---:|---:|---|---|',
  ];
  for (const { store, rows } of results) {
    for (const r of rows) {
      if (r.tail) {
        const ratio = r.board.latency.p99 / Math.max(1, r.board.latency.p50);
        lines.push(`| ${store} | ${r.operation} | | ${r.board.latency.p50} | ${r.board.latency.p99} | ${r.floorName} | | p99 = ${ratio.toFixed(1)} × p50 | ≤ ${r.goal} × | ${ratio <= r.goal ? 'yes' : '**no**'} |`);
        continue;
      }
      const ratio = r.board.requests.average / r.floor.requests.average;
      const met = ratio >= r.goal && failures(r.board) === 0;
      lines.push(
        `| ${store} | ${r.operation} | ${rps(r.board)} | ${r.board.latency.p50} | ${r.board.latency.p99} | ${r.floorName} | ${rps(r.floor)} | ${(ratio * 100).toFixed(0)}% | ≥ ${r.goal * 100}% | ${met ? 'yes' : '**no**'} |`,
      );
    }
  }
  return lines.join('\n');
}

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: PACKAGE_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: PACKAGE_ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} with uncommitted changes` : head;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-bench-'));
  // BENCH_STORES=sqlite (or postgresql) measures one store only, for a quicker loop.
  const only = process.env.BENCH_STORES?.toLowerCase().split(',');
  const setups = (await storeSetups(dir)).filter((s) => !only || only.includes(s.name.toLowerCase()));
  const results: { store: string; rows: Row[] }[] = [];
  try {
    for (const s of setups) {
      const target = s.name === 'PostgreSQL' ? s.env.DATABASE_URL! : s.env.DATABASE_URL!.replace(/^sqlite:/, '');
      results.push({ store: s.name, rows: await measureStore(s.name, s.env, dir, target) });
    }
  } finally {
    for (const s of setups) await s.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  const table = tableOf(results);
  const errors = results
    .flatMap(({ store, rows }) => rows.filter((r) => !r.tail).map((r) => `${store} ${r.operation}: ${failures(r.board)}`))
    .join('; ');
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const md = `## HTTP throughput against the floors

Produced by \`npm run bench\` (src/bench/run.ts) on ${new Date().toISOString().slice(0, 10)}, commit ${commit()}, in ${minutes} min.

- Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node.js ${process.version}. Load generator (autocannon, this process), board and floor are separate processes sharing the machine${setups.length > 1 ? ' (with PostgreSQL and Redis besides)' : ''}; each row runs ${DURATION_S} s, reads on ${READ_CONNECTIONS} connections, publishes on ${WRITE_CONNECTIONS}.
- Board: one \`agentboard serve\` process per store (${setups.map((s) => s.name).join(', ')}${setups.length > 1 ? '; PostgreSQL 15 with a pool of 10, Redis for rate limits and nonces, vectors in process memory' : ''}), seeded over HTTP with ${SEED} findings of 12–30 words from a 160-word technical vocabulary, embedded with the bundled model before the first row; rate limits off, one JSON log line per request (to a file, as a collector would take it).
- Search rows cycle through ${QUERIES} two-word queries, which after the first round the board answers from its cache of search candidates (exact: nothing is written meanwhile; see README, Reads are cached, exactly); the rows marked "every query new" send ${newQueries.length.toLocaleString('en')} distinct two-word queries in turn, more than a row gets through, so each is a miss and the full-text query runs every time. POST rows publish a distinct text per request: each is a real insert with its dedupe check, its event and its embedding job.
- Floors, each a bare \`node:http\` process (src/bench/floor-server.ts): the same bytes for reads; for lexical search the engine's own query over the same objects, run before the board's publishes (${setups.map((s) => (s.name === 'PostgreSQL' ? 'PostgreSQL: `plainto_tsquery` match of all words, `ts_rank`, expiry filter, top 10' : 'SQLite: FTS5 `MATCH` of all words, `bm25(4,2,1)`, `snippet`, expiry join, top 10')).join('; ')}); for publishing one insert into a full-text-indexed table.

${table}

Errors and non-2xx answers: ${errors}.
`;
  writeSection(join(PACKAGE_ROOT, 'BENCHMARKS.md'), 'http', md);
  process.stdout.write(`\n${table}\n\nwritten to BENCHMARKS.md (${minutes} min)\n`);
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});
