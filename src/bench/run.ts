/**
 * `npm run bench`: every operation of the board measured beside its floor, in one run, on each
 * store, and written to BENCHMARKS.md with the goals and whether they are met.
 *
 * The board, each floor (floor-server.ts) and autocannon (this process) are separate
 * processes, all started before the first row. A row's board and floor take turns in short
 * slices (interleaved()), each measured while the others wait idle; every search row runs
 * before the publishes, so the board and the search floor search the same objects, and the
 * board has finished embedding what it was seeded with before any row starts. Every number
 * is measured here; nothing is asserted.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { PACKAGE_ROOT } from '../paths.js';
import { SERVE_NODE_FLAGS } from '../cli/serve-flags.js';
import { startChild, storeSetups, type StoreSetup } from './child.js';
import { commandCpuMs, processCpuMs } from './cpu.js';
import { writeSection } from './sections.js';
import { cpuText, httpReport, tableOf, type Measured, type Row } from './http-report.js';
import { BENCH } from './settings.js';
import { sentence, VOCABULARY } from './vocabulary.js';

const DURATION_S = BENCH.BENCH_DURATION;
/** Each row's time is cut into this many slices, taken in turn with its floor's. */
const SLICES = BENCH.BENCH_SLICES;
/** Seconds each side of a row runs unmeasured before its first slice. */
const WARMUP_S = BENCH.BENCH_WARMUP;
const READ_CONNECTIONS = BENCH.BENCH_CONNECTIONS;
const WRITE_CONNECTIONS = BENCH.BENCH_WRITE_CONNECTIONS;
const SEED = BENCH.BENCH_SEED;
const QUERIES = 40;

const BOARD = join(PACKAGE_ROOT, 'dist/cli/main.js');
const FLOOR = join(PACKAGE_ROOT, 'dist/bench/floor-server.js');

/** Forty two-word queries from the seed's vocabulary: each matches a realistic few per cent of it. */
const queries = Array.from({ length: QUERIES }, (_, i) => `${VOCABULARY[(i * 7 + 3) % VOCABULARY.length]} ${VOCABULARY[(i * 13 + 11) % VOCABULARY.length]}`);
/**
 * Two-word queries, none repeated (every ordered pair of distinct vocabulary words, more than a
 * row sends): each is a miss for the board's cache of search candidates, so these rows measure
 * the engine's work per search.
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
  /** The next of `paths` to send: a load's slices go on where the one before stopped. */
  next: number;
}

const reads = (paths: string[]): Load => ({ paths, method: 'GET', connections: READ_CONNECTIONS, next: 0 });
const writes = (): Load => ({ paths: ['/findings'], method: 'POST', connections: WRITE_CONNECTIONS, next: 0 });

let published = 0;

/**
 * One slice of `l` against `url`, unaggregated (its latency histogram is merged with the other
 * slices' afterwards). A POST sends a distinct body per request, so each is a real insert.
 */
function slice(url: string, l: Load, seconds: number): Promise<SliceResult> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: l.connections,
        duration: seconds,
        skipAggregateResult: true,
        headers: { 'content-type': 'application/json' },
        requests: [
          {
            method: l.method,
            setupRequest: (req) => ({
              ...req,
              path: l.paths[l.next++ % l.paths.length]!,
              ...(l.method === 'POST' ? { body: JSON.stringify({ content: `bench publish ${process.pid} ${published++} ${sentence(published)}`, topics: ['bench'] }) } : {}),
            }),
          },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result as SliceResult)),
    );
  });
}

/** What a row reports of one side. */
/** A slice's unaggregated result: the typings lack its count of completed requests. */
type SliceResult = autocannon.Result & { totalCompletedRequests: number };

// The typings lack it: merges unaggregated results' latency histograms (autocannon README).
const { aggregateResult } = autocannon as unknown as { aggregateResult(results: SliceResult[], opts: { url: string; connections: number }): autocannon.Result };

interface Target {
  label: string;
  url: string;
  /** The serving process, whose CPU time is counted. */
  pid: number;
  /** The database server's command (`postgres`), whose processes' CPU time is counted too. */
  db?: string;
  load: Load;
  /** Awaited before each of its slices (to let the board finish work left by its own slice). */
  before?: () => Promise<void>;
}

/**
 * Measures the targets of one row in SLICES turns, each turn reversing the last's order
 * (A B, B A, A B…): the machine's speed drifts over minutes, and a drift then falls on a board
 * and its floor alike instead of on one of them.
 */
async function interleaved<T extends Target[]>(settle: () => Promise<void>, targets: [...T]): Promise<{ [K in keyof T]: Measured }> {
  const seconds = DURATION_S / SLICES;
  const slices: SliceResult[][] = targets.map(() => []);
  const cpu = targets.map(() => ({ own: 0 as number | null, db: 0 as number | null }));
  /** Adds to a sum while every reading is known; null from the first unknown one on. */
  const add = (sum: number | null, before: number | null, after: number | null) => (sum === null || before === null || after === null ? null : sum + after - before);
  // Each side first runs its load unmeasured, so that no side's first slice pays for compiling
  // the route's code (the board's GET /p/{id}, cold, did half its warm rate in its first slice).
  for (const t of WARMUP_S > 0 ? targets : []) {
    await settle();
    await t.before?.();
    await slice(t.url, t.load, WARMUP_S);
  }
  for (let turn = 0; turn < SLICES; turn++) {
    const order = targets.map((_, i) => i);
    if (turn % 2 === 1) order.reverse();
    for (const i of order) {
      await settle();
      const t = targets[i]!;
      await t.before?.();
      const [own, db] = [processCpuMs(t.pid), t.db ? commandCpuMs(t.db) : null];
      slices[i]!.push(await slice(t.url, t.load, seconds));
      cpu[i] = { own: add(cpu[i]!.own, own, processCpuMs(t.pid)), db: t.db ? add(cpu[i]!.db, db, commandCpuMs(t.db)) : null };
    }
  }
  return targets.map((t, i): Measured => {
    const parts = slices[i]!;
    const merged = aggregateResult(parts, { url: t.url, connections: t.load.connections });
    const completed = parts.reduce((n, r) => n + r.totalCompletedRequests, 0);
    const perRequest = (ms: number | null) => (ms === null || completed === 0 ? null : (ms * 1000) / completed);
    const m: Measured = {
      rps: completed / parts.reduce((n, r) => n + r.duration, 0),
      turns: parts.map((r) => r.totalCompletedRequests / r.duration),
      p50: merged.latency.p50,
      p99: merged.latency.p99,
      failures: merged.errors + merged.non2xx + merged.timeouts,
      cpuUs: perRequest(cpu[i]!.own),
      dbUs: perRequest(cpu[i]!.db),
    };
    process.stdout.write(`  ${t.label}: ${Math.round(m.rps)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, CPU ${cpuText(m)} µs/req${m.failures ? `, ${m.failures} failed` : ''}\n`);
    return m;
  }) as { [K in keyof T]: Measured };
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
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Waits until the board has answered every request the last slice left in flight: its count of
 * answers (its own /metrics reads aside) stops moving. autocannon stops sending when a slice
 * ends, but the board still works through what it was sent, and that work would fall on the
 * next slice, the floor's or its own.
 */
async function settled(url: string): Promise<void> {
  const answered = async () => {
    let n = 0;
    for (const m of (await (await fetch(`${url}/metrics`)).text()).matchAll(/^agentboard_http_requests_total\{([^}]*)\} (\d+)/gm)) {
      if (!m[1]!.includes('route="/metrics"')) n += Number(m[2]);
    }
    return n;
  };
  for (let last = await answered(), tries = 0; tries < 200; tries++) {
    await new Promise((r) => setTimeout(r, 50));
    const now = await answered();
    if (now === last) return;
    last = now;
  }
}

/** Runs `fn` with the children started (each prints its URL), then stops them all. */
async function withChildren<T>(specs: { args: string[]; env?: Record<string, string> }[], fn: (children: { url: string; pid: number }[]) => Promise<T>): Promise<T> {
  const started: ChildProcess[] = [];
  try {
    const children: { url: string; pid: number }[] = [];
    for (const s of specs) {
      const { child, url } = await startChild(s.args, s.env ?? {});
      started.push(child);
      children.push({ url, pid: child.pid! });
    }
    return await fn(children);
  } finally {
    for (const child of started) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }
}

async function measureStore(setup: StoreSetup, dir: string, dbTarget: string): Promise<Row[]> {
  const { name, env } = setup;
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
  // Where a row's CPU time is counted: the serving process, and on PostgreSQL the server's processes.
  const on = (c: { url: string; pid: number }) => ({ url: c.url, pid: c.pid, ...(isPg ? { db: 'postgres' } : {}) });
  const m = await withChildren([{ args: [...SERVE_NODE_FLAGS, BOARD, 'serve'], env: boardEnv }], async ([boardChild]) => {
    const board = boardChild!.url;
    process.stdout.write(`  seeding ${SEED} findings…\n`);
    const firstId = await seed(board);
    await embedded(board);
    await setup.steady();
    const readPaths = { object: `/p/${firstId}`, list: '/findings?limit=20' };
    const recorded: Record<string, { status: number; contentType: string; body: string }> = {};
    for (const p of Object.values(readPaths)) {
      const res = await fetch(board + p);
      recorded[`GET ${p}`] = { status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.text() };
    }
    const routesFile = join(dir, `routes-${name}.json`);
    writeFileSync(routesFile, JSON.stringify(recorded));
    const insertTarget = isPg ? dbTarget : join(dir, 'floor-insert.db');
    // The floors wait idle beside the board. The search floor queries the objects the board
    // searched: every search row runs before the publishes add more.
    const floors = [
      { args: [FLOOR, 'bytes', routesFile] },
      { args: [FLOOR, isPg ? 'pg-search' : 'sqlite-search', dbTarget] },
      { args: [FLOOR, isPg ? 'pg-insert' : 'sqlite-insert', insertTarget] },
    ];
    const settle = () => settled(board);
    return withChildren(floors, async ([bytes, search, insert]) => {
      const [object, objectFloor] = await interleaved(settle, [
        { label: 'board GET /p/{id}', ...on(boardChild!), load: reads([readPaths.object]) },
        { label: 'floor GET /p/{id} (same bytes)', ...on(bytes!), load: reads([readPaths.object]) },
      ]);
      const [list, listFloor] = await interleaved(settle, [
        { label: 'board GET /findings?limit=20', ...on(boardChild!), load: reads([readPaths.list]) },
        { label: 'floor GET /findings (same bytes)', ...on(bytes!), load: reads([readPaths.list]) },
      ]);
      const [lexical, searchFloor, hybrid] = await interleaved(settle, [
        { label: 'board GET /search lexical', ...on(boardChild!), load: reads(searchPaths('lexical')) },
        { label: 'floor search query', ...on(search!), load: reads(searchPaths('lexical')) },
        { label: 'board GET /search hybrid', ...on(boardChild!), load: reads(searchPaths('hybrid')) },
      ]);
      const [lexicalNew, searchFloorNew, hybridNew] = await interleaved(settle, [
        { label: 'board GET /search lexical, every query new', ...on(boardChild!), load: reads(searchPaths('lexical', newQueries)) },
        { label: 'floor search query, every query new', ...on(search!), load: reads(searchPaths('lexical', newQueries)) },
        { label: 'board GET /search hybrid, every query new', ...on(boardChild!), load: reads(searchPaths('hybrid', newQueries)) },
      ]);
      const [publish, insertFloor] = await interleaved(settle, [
        { label: 'board POST /findings', ...on(boardChild!), load: writes() },
        // What the board's slice left to the embedding queue is embedded before the floor's slice, not during it.
        { label: 'floor insert', ...on(insert!), load: writes(), before: () => embedded(board) },
      ]);
      return { object, objectFloor, list, listFloor, lexical, searchFloor, hybrid, lexicalNew, searchFloorNew, hybridNew, publish, insertFloor };
    });
  });
  const engine = isPg ? 'bare `pg` query' : 'raw FTS5 query';
  return [
    { operation: 'GET /p/{id}', board: m.object, floorName: 'bare node:http, same bytes', floor: m.objectFloor, goal: 0.5 },
    { operation: 'GET /findings?limit=20', board: m.list, floorName: 'bare node:http, same bytes', floor: m.listFloor, goal: 0.5 },
    { operation: `GET /search mode=lexical (${QUERIES} queries)`, board: m.lexical, floorName: `${engine} + bare node:http`, floor: m.searchFloor, goal: 0.5 },
    { operation: 'GET /search mode=lexical, tail', board: m.lexical, floorName: 'its own p50', floor: m.lexical, goal: 5, tail: true },
    { operation: `GET /search mode=hybrid (${QUERIES} queries)`, board: m.hybrid, floorName: "the board's lexical search", floor: m.lexical, goal: 0.33 },
    { operation: 'GET /search mode=lexical, every query new', board: m.lexicalNew, floorName: `${engine} + bare node:http, same queries`, floor: m.searchFloorNew, goal: 0.5 },
    { operation: 'GET /search mode=lexical, every query new, tail', board: m.lexicalNew, floorName: 'its own p50', floor: m.lexicalNew, goal: 5, tail: true },
    { operation: 'GET /search mode=hybrid, every query new', board: m.hybridNew, floorName: "the board's lexical search, every query new", floor: m.lexicalNew, goal: 0.33 },
    { operation: `POST /findings (${WRITE_CONNECTIONS} connections)`, board: m.publish, floorName: `bare node:http + one ${isPg ? 'PostgreSQL INSERT (GIN tsvector index)' : 'SQLite INSERT (FTS5 index, WAL, synchronous=NORMAL)'}`, floor: m.insertFloor, goal: 0.5 },
  ];
}

async function main(): Promise<void> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-bench-'));
  // BENCH_STORES=sqlite (or postgresql) measures one store only, for a quicker loop.
  const only = BENCH.BENCH_STORES?.map((s) => s.toLowerCase());
  const all = await storeSetups(dir);
  const setups = all.filter((s) => !only || only.includes(s.name.toLowerCase()));
  const results: { store: string; rows: Row[] }[] = [];
  try {
    for (const s of setups) {
      const target = s.name === 'PostgreSQL' ? s.env.DATABASE_URL! : s.env.DATABASE_URL!.replace(/^sqlite:/, '');
      results.push({ store: s.name, rows: await measureStore(s, dir, target) });
    }
  } finally {
    // Every store set up, measured or not: an unmeasured PostgreSQL's connection would keep the process alive.
    for (const s of all) await s.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  const table = tableOf(results);
  const errors = results
    .flatMap(({ store, rows }) => rows.filter((r) => !r.tail).map((r) => `${store} ${r.operation}: ${r.board.failures}`))
    .join('; ');
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const md = httpReport({ queries: QUERIES, minutes, stores: setups.map((x) => x.name), table, errors, newQueries: newQueries.length });
  writeSection(join(PACKAGE_ROOT, 'BENCHMARKS.md'), 'http', md);
  process.stdout.write(`\n${table}\n\nwritten to BENCHMARKS.md (${minutes} min)\n`);
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});
