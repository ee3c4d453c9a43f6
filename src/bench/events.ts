/**
 * `npm run bench:events`: the push stream under load. 50 subscribers on GET /events hear each
 * publish; the delay from the publishing request's 201 to each subscriber's event is measured
 * (p50, p99). Then one instance holds 10,000 idle streams: its resident memory before and
 * after, against the budget. On SQLite (one process), and on PostgreSQL + Redis with the
 * subscribers on another instance than the publisher, when the server answers.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';
import { SERVE_NODE_FLAGS } from '../cli/serve-flags.js';
import { startChild, storeSetups } from './child.js';
import { writeSection } from './sections.js';
import { BENCH } from './settings.js';

const SUBSCRIBERS = BENCH.BENCH_SUBSCRIBERS;
const PUBLISHES = BENCH.BENCH_PUBLISHES;
const IDLE_STREAMS = BENCH.BENCH_IDLE_STREAMS;
/** The memory an instance may add to hold 10,000 idle streams (stated in BENCHMARKS.md). */
const BUDGET_MB = 256;

const BOARD_ENV = {
  PORT: '0',
  RATE_LIMIT_READS: '0',
  RATE_LIMIT_ANON_WRITES: '0',
  REGISTRY_URL: 'off',
  EMBEDDINGS: 'none',
  // info, as in production: one log line per request is part of the board's cost.
  LOG_LEVEL: 'info',
  TRUST_PROXY: 'true',
  EVENTS_MAX_STREAMS_PER_CLIENT: '100000',
};

/** A board process (dist/cli/main.js serve, started as npm start starts it) on the given store. */
const startBoard = (env: Record<string, string>) => startChild([...SERVE_NODE_FLAGS, join(PACKAGE_ROOT, 'dist/cli/main.js'), 'serve'], { ...BOARD_ENV, ...env });

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};

/** Opens a stream; calls onEvent with each event's object id as it arrives. */
async function subscribe(url: string, from: string, onEvent?: (objectId: string) => void): Promise<AbortController> {
  const abort = new AbortController();
  const res = await fetch(`${url}/events`, { headers: { 'x-forwarded-for': from }, signal: abort.signal });
  if (res.status !== 200) throw new Error(`GET /events answered ${res.status}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      if (!onEvent) continue;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const m = /"object":\{"id":"(\w+)"/.exec(buffer.slice(0, end));
        if (m) onEvent(m[1]!);
        buffer = buffer.slice(end + 2);
      }
    }
  })();
  return abort;
}

interface Measured {
  name: string;
  p50: number;
  p99: number;
  max: number;
  samples: number;
  missing: number;
  idleBeforeMb: number;
  idleAfterMb: number;
}

async function measure(name: string, publisher: string, listener: { url: string; pid: number }): Promise<Measured> {
  const heard = new Map<string, number[]>();
  const subs: AbortController[] = [];
  for (let i = 0; i < SUBSCRIBERS; i++) {
    subs.push(
      await subscribe(listener.url, `10.1.${i >> 8}.${i & 255}`, (id) => {
        const at = performance.now();
        (heard.get(id) ?? heard.set(id, []).get(id)!).push(at);
      }),
    );
  }
  const acked = new Map<string, number>();
  for (let i = 0; i < PUBLISHES; i++) {
    const r = await fetch(`${publisher}/findings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.2.0.${i % 250}` },
      body: JSON.stringify({ content: `event bench ${name} ${i} ${randomBytes(4).toString('hex')}`, topics: ['bench'] }),
    });
    const at = performance.now();
    const j = (await r.json()) as { object: { id: string } };
    acked.set(j.object.id, at);
    await sleep(20);
  }
  await sleep(1500);
  const delays: number[] = [];
  let missing = 0;
  for (const [id, at] of acked) {
    const times = heard.get(id) ?? [];
    missing += SUBSCRIBERS - times.length;
    for (const t of times) delays.push(Math.max(0, t - at));
  }
  for (const s of subs) s.abort();
  await sleep(500);

  process.stdout.write(`${name}: opening ${IDLE_STREAMS} idle streams…\n`);
  const idleBeforeMb = rssMb(listener.pid);
  const idle: AbortController[] = [];
  for (let i = 0; i < IDLE_STREAMS; i += 200) {
    idle.push(...(await Promise.all(Array.from({ length: Math.min(200, IDLE_STREAMS - i) }, (_, k) => subscribe(listener.url, `10.3.${(i + k) >> 8}.${(i + k) & 255}`)))));
  }
  await sleep(2000);
  const idleAfterMb = rssMb(listener.pid);
  for (const s of idle) s.abort();
  return { name, p50: quantile(delays, 0.5), p99: quantile(delays, 0.99), max: Math.max(...delays), samples: delays.length, missing, idleBeforeMb, idleAfterMb };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-bench-events-'));
  const results: Measured[] = [];
  const setups = await storeSetups(dir);
  try {
    for (const setup of setups) {
      // On a shared store, the subscribers listen on another instance than the one publishing.
      const shared = setup.name !== 'SQLite';
      const publisher = await startBoard(setup.env);
      const listener = shared ? await startBoard(setup.env) : publisher;
      try {
        const name = shared ? `${setup.name} + Redis, publish on one instance, listen on another` : `${setup.name}, one process`;
        results.push(await measure(name, publisher.url, { url: listener.url, pid: listener.child.pid! }));
      } finally {
        publisher.child.kill('SIGTERM');
        listener.child.kill('SIGTERM');
      }
    }
  } finally {
    for (const s of setups) await s.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  const f = (n: number) => n.toFixed(1);
  const table = [
    `| setup | subscribers × publishes | delay p50 ms | delay p99 ms | max ms | events missing | RSS idle MB | RSS with ${IDLE_STREAMS} idle streams MB | added per stream KB |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${SUBSCRIBERS} × ${PUBLISHES} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.max)} | ${r.missing} | ${f(r.idleBeforeMb)} | ${f(r.idleAfterMb)} | ${f(((r.idleAfterMb - r.idleBeforeMb) * 1024) / IDLE_STREAMS)} |`,
    ),
  ].join('\n');
  const md = `## Event stream (GET /events)

Produced by \`npm run bench:events\` (src/bench/events.ts) on ${new Date().toISOString().slice(0, 10)}, on ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node.js ${process.version}.

- Delay: ${SUBSCRIBERS} subscribers hold \`GET /events\` open while ${PUBLISHES} findings are published one every 20 ms; each sample is the time from the publishing request's 201 (as its client read it) to the event arriving at one subscriber, on loopback, in the same process. Target: p99 under 1,000 ms.
- Idle streams: then ${IDLE_STREAMS} idle streams are opened to the listening instance; its resident memory (VmRSS) before and two seconds after. **Budget: ${BUDGET_MB} MB added for ${IDLE_STREAMS.toLocaleString('en-US')} idle streams** (about 26 KB each: a socket, its HTTP state, a ReadableStream and a subscriber).

${table}
`;
  writeSection(join(PACKAGE_ROOT, 'BENCHMARKS.md'), 'events', md);
  process.stdout.write(`\n${table}\n\nwritten to BENCHMARKS.md\n`);
  for (const r of results) {
    if (r.idleAfterMb - r.idleBeforeMb > BUDGET_MB) process.stdout.write(`${r.name}: over the memory budget\n`);
    if (r.p99 > 1000) process.stdout.write(`${r.name}: p99 over 1 s\n`);
  }
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});
