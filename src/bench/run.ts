/**
 * `npm run bench`: load-tests the board on loopback beside a bare node:http server that
 * answers the same bytes, in the same run, and writes the table to BENCHMARKS.md.
 *
 * The board and the bare server each run in their own child process; autocannon drives them
 * from this one. Every number is measured here; nothing is asserted.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { generateKey, publicJwkOf, signRequest, type PrivateJwk } from '../identity/agent-sign.mjs';
import { PACKAGE_ROOT } from '../paths.js';
import { startChild, storeSetups } from './child.js';
import { writeSection } from './sections.js';
import { sentence } from './vocabulary.js';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SEED = Number(process.env.BENCH_SEED ?? 2000);
/** Enough distinct signed publishes for one row at several thousand requests a second. */
const SIGNED_POOL = Number(process.env.BENCH_SIGNED_POOL ?? 30_000);

interface Recorded {
  status: number;
  contentType: string;
  body: string;
}

/** A bare node:http server answering each path with recorded bytes: the ceiling to compare with. */
const BARE_SERVER = `
const http = require('node:http');
const routes = JSON.parse(require('node:fs').readFileSync(process.argv[1], 'utf8'));
const server = http.createServer((req, res) => {
  const r = routes[req.method + ' ' + req.url];
  const send = () => { res.writeHead(r.status, { 'content-type': r.contentType, 'content-length': Buffer.byteLength(r.body) }); res.end(r.body); };
  if (req.method === 'POST') { req.resume(); req.on('end', send); } else send();
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port })));
`;

async function record(url: string, init?: RequestInit): Promise<Recorded> {
  const res = await fetch(url, init);
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.text() };
}

let published = 0;

interface Prepared {
  headers: Record<string, string>;
  body: string;
}

/** Distinct signed publishes made ahead of the run: signing is the agent's cost, not the board's. */
async function presign(url: string, privateJwk: PrivateJwk, count: number): Promise<Prepared[]> {
  const out: Prepared[] = [];
  for (let i = 0; i < count; i++) {
    const body = JSON.stringify({ content: `bench signed publish ${i}`, topics: ['bench'] });
    const r = await signRequest(new Request(`${url}/findings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }), { privateJwk, expiresIn: 900 });
    const headers: Record<string, string> = {};
    r.headers.forEach((v, k) => (headers[k] = v));
    out.push({ headers, body });
  }
  return out;
}

/** Runs autocannon; a POST sends a distinct body per request so each one is a real insert. */
function load(url: string, method: 'GET' | 'POST', path: string, prepared?: Prepared[]): Promise<autocannon.Result> {
  let next = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: url + path,
        connections: CONNECTIONS,
        duration: DURATION_S,
        headers: { 'content-type': 'application/json' },
        requests: [
          method === 'GET'
            ? { method }
            : prepared
              ? { method, setupRequest: (req) => ({ ...req, ...prepared[next++ % prepared.length]! }) }
              : {
                  method,
                  // idReplacement is broken in this autocannon; a counter gives each body its own content.
                  setupRequest: (req) => ({ ...req, body: JSON.stringify({ content: `bench publish ${published++}`, topics: ['bench'] }) }),
                },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

interface Case {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  prepared?: Prepared[];
}

/** Starts a board on one store, seeds it, measures every case; answers the results and the bytes it answered. */
async function measureBoard(storeEnv: Record<string, string>): Promise<{ results: autocannon.Result[]; cases: Case[]; routes: Record<string, Recorded> }> {
  const board = await startChild([join(PACKAGE_ROOT, 'dist/cli/main.js'), 'serve'], {
    PORT: '0',
    RATE_LIMIT_READS: '0',
    RATE_LIMIT_ANON_WRITES: '0',
    RATE_LIMIT_SIGNED_WRITES: '0',
    REGISTRY_URL: 'off',
    // info, as in production: one log line per request is part of the board's cost.
    LOG_LEVEL: 'info',
    ...storeEnv,
  });
  try {
    // Signed before anything else: a long pause between requests would outlive idle keep-alive sockets.
    const { privateJwk } = generateKey();
    process.stdout.write(`signing ${SIGNED_POOL} publishes…\n`);
    const signed = await presign(board.url, privateJwk, SIGNED_POOL);
    const registration = await signRequest(
      new Request(`${board.url}/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jwk: publicJwkOf(privateJwk) }) }),
      { privateJwk },
    );
    if ((await fetch(registration)).status !== 201) throw new Error('could not register the bench key');
    process.stdout.write(`seeding ${SEED} findings…\n`);
    const topics = ['postgres', 'redis', 'sqlite', 'kubernetes', 'node', 'python', 'mcp', 'auth'];
    let firstId = '';
    for (let i = 0; i < SEED; i++) {
      const t = topics[i % topics.length]!;
      const r = await fetch(`${board.url}/findings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: `${sentence(i)} (${t} note ${i})`, topics: [t, `area-${i % 20}`] }),
      });
      const j = (await r.json()) as { object: { id: string } };
      if (i === 0) firstId = j.object.id;
    }
    const searchPath = '/search?q=connection%20pool%20exhausted&mode=lexical';
    const cases: Case[] = [
      { name: 'GET /p/{id}', method: 'GET', path: `/p/${firstId}` },
      { name: 'GET /findings', method: 'GET', path: '/findings' },
      { name: 'GET /search (lexical)', method: 'GET', path: searchPath },
      { name: 'POST /findings', method: 'POST', path: '/findings' },
      { name: 'POST /findings (signed)', method: 'POST', path: '/findings', prepared: signed },
    ];
    const routes: Record<string, Recorded> = {};
    for (const c of cases) {
      routes[`${c.method} ${c.path}`] =
        c.method === 'GET'
          ? await record(board.url + c.path)
          : await record(board.url + c.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: 'bench publish sample', topics: ['bench'] }) });
    }
    const results: autocannon.Result[] = [];
    for (const c of cases) {
      process.stdout.write(`${c.name}: board…`);
      const r = await load(board.url, c.method, c.path, c.prepared);
      process.stdout.write(` ${Math.round(r.requests.average)} req/s\n`);
      results.push(r);
    }
    return { results, cases, routes };
  } finally {
    board.child.kill('SIGTERM');
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-bench-'));
  const setups = await storeSetups(dir);
  try {
    const measured: { name: string; results: autocannon.Result[] }[] = [];
    let first: Awaited<ReturnType<typeof measureBoard>> | null = null;
    for (const s of setups) {
      process.stdout.write(`— ${s.name}\n`);
      const m = await measureBoard(s.env);
      first ??= m;
      measured.push({ name: s.name, results: m.results });
    }
    // The floor answers the first board's bytes (the stores answer the same shapes).
    const routesFile = join(dir, 'routes.json');
    writeFileSync(routesFile, JSON.stringify(first!.routes));
    const bare = await startChild(['-e', BARE_SERVER, routesFile], {});
    const bareResults: autocannon.Result[] = [];
    try {
      for (const c of first!.cases) {
        process.stdout.write(`${c.name}: bare…`);
        bareResults.push(await load(bare.url, c.method, c.path));
        process.stdout.write(` ${Math.round(bareResults.at(-1)!.requests.average)} req/s\n`);
      }
    } finally {
      bare.child.kill('SIGTERM');
    }
    const rps = (r: autocannon.Result) => Math.round(r.requests.average);
    const table = [
      `| endpoint | ${measured.map((m) => `${m.name} req/s | ${m.name} p50 ms | ${m.name} p99 ms`).join(' | ')} | bare req/s | bare p99 ms | ${measured.map((m) => `${m.name} / bare`).join(' | ')} |`,
      `|---|${measured.map(() => '---:|---:|---:').join('|')}|---:|---:|${measured.map(() => '---:').join('|')}|`,
      ...first!.cases.map((c, i) => {
        const b = bareResults[i]!;
        return `| ${c.name} | ${measured.map((m) => `${rps(m.results[i]!)} | ${m.results[i]!.latency.p50} | ${m.results[i]!.latency.p99}`).join(' | ')} | ${rps(b)} | ${b.latency.p99} | ${measured.map((m) => (m.results[i]!.requests.average / b.requests.average).toFixed(2)).join(' | ')} |`;
      }),
    ].join('\n');
    const errors = measured.flatMap((m) => m.results.map((r, i) => `${m.name} ${first!.cases[i]!.name}: ${r.errors} errors, ${r.non2xx} non-2xx`)).join('; ');
    const md = `## HTTP throughput

Produced by \`npm run bench\` (src/bench/run.ts) on ${new Date().toISOString().slice(0, 10)}.

- Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node.js ${process.version}.
- Load: autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per row, on loopback; the load generator, the board and the bare server are three processes sharing the machine${setups.length > 1 ? ' (four with PostgreSQL, five with Redis)' : ''}.
- Board: one \`agentboard serve\` process (\`REGISTRY_URL=off\`) per store: ${setups.map((s) => s.name).join(' and ')}${setups.length > 1 ? ' (the machine\'s PostgreSQL 15, pool of 10, Redis for rate limits and nonces, vectors in process memory)' : ''}. Each is seeded with ${SEED} findings of 12–30 words drawn from a 160-word technical vocabulary (so a three-word query matches a realistic share of them), rate limits off, one JSON log line per request (as in production).
- Bare: a plain \`node:http\` server answering each path with the exact bytes the board answered (status, content type, body): the ceiling for this machine.
- POST rows publish a distinct object per request, so each is a real insert with its dedupe check. The signed row sends requests signed ahead of the run (Ed25519, RFC 9421, a registered key), so it measures verification — digest, signature base, Ed25519, key lookup — plus the insert; the bare server answers it with the anonymous publish's bytes.

${table}

Errors: ${errors}.

Goal for later work: reads at least half the bare server's rate.
`;
    writeSection(join(PACKAGE_ROOT, 'BENCHMARKS.md'), 'http', md);
    process.stdout.write(`\n${table}\n\nwritten to BENCHMARKS.md\n`);
  } finally {
    for (const s of setups) await s.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});
