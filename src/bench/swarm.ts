/**
 * `npm run bench:swarm`: how many agents one instance carries. N simulated agents (swarm-agents.ts)
 * against one instance on SQLite, one on PostgreSQL, and two on PostgreSQL sharing the agents;
 * per operation p50, p99 and errors, the boards' CPU and memory, and the largest N whose every
 * p99 stays under 100 ms with no error. The load generator shares the machine's cores.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { SERVE_NODE_FLAGS } from '../cli/serve-flags.js';
import { PACKAGE_ROOT } from '../paths.js';
import { startChild, storeSetups, type StoreSetup } from './child.js';
import { commandCpuMs, processCpuMs } from './cpu.js';
import { commit, writeSection } from './sections.js';
import { BENCH } from './settings.js';
import { agent, newTally, OPERATIONS, type Tally } from './swarm-agents.js';
import { sentence } from './vocabulary.js';

const BOARD = join(PACKAGE_ROOT, 'dist/cli/main.js');
const SEEDED = 500;
/** The goal each size is held to: every operation's p99 under this, and no error. */
const P99_GOAL_MS = 100;

interface Measured {
  setup: string;
  agents: number;
  ops: Record<string, { p50: number; p99: number; errors: number; perSecond: number }>;
  boardCores: number;
  dbCores: number | null;
  rssMiB: number;
}

const percentile = (xs: number[], p: number) => {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** One size on running boards: agents spread over `urls`, measured after the warm-up. */
async function measure(setup: string, boards: { url: string; pid: number }[], agents: number, pg: boolean): Promise<Measured> {
  const tally: Tally = newTally();
  const { SWARM_WARMUP: warmup, SWARM_SECONDS: seconds, SWARM_THINK_MS: thinkMs } = BENCH;
  const stopAt = Date.now() + (warmup + seconds) * 1000;
  const running = Array.from({ length: agents }, (_, n) => agent(n, { url: boards[n % boards.length]!.url, thinkMs, stopAt, tally }));
  await new Promise((r) => setTimeout(r, warmup * 1000));
  const cpu = () => boards.reduce((sum, b) => sum + (processCpuMs(b.pid) ?? 0), 0);
  const [cpu0, db0, t0] = [cpu(), pg ? commandCpuMs('postgres') : null, performance.now()];
  tally.open = true;
  await new Promise((r) => setTimeout(r, seconds * 1000));
  tally.open = false;
  const [cpu1, db1, t1] = [cpu(), pg ? commandCpuMs('postgres') : null, performance.now()];
  const rss = Math.max(...boards.map((b) => rssMiB(b.pid)));
  await Promise.all(running);
  const wall = t1 - t0;
  const ops = Object.fromEntries(
    OPERATIONS.map((op) => [op, { p50: percentile(tally.latencies[op], 50), p99: percentile(tally.latencies[op], 99), errors: tally.errors[op], perSecond: (tally.latencies[op].length * 1000) / wall }]),
  );
  const m = { setup, agents, ops, boardCores: (cpu1 - cpu0) / wall, dbCores: db0 !== null && db1 !== null ? (db1 - db0) / wall : null, rssMiB: rss };
  process.stdout.write(`  ${agents} agents: ${OPERATIONS.map((op) => `${op} p99 ${ops[op]!.p99.toFixed(0)} ms (${ops[op]!.errors} errors)`).join(', ')}; board ${m.boardCores.toFixed(2)} cores, ${rss.toFixed(0)} MiB\n`);
  return m;
}

/** Starts `instances` boards on `setup`, seeds them, and measures every size. */
async function measureSetup(name: string, setup: StoreSetup, instances: number): Promise<Measured[]> {
  process.stdout.write(`— ${name}\n`);
  const env = { PORT: '0', RATE_LIMIT_READS: '0', RATE_LIMIT_ANON_WRITES: '0', REGISTRY_URL: 'off', LOG_LEVEL: 'info', TRUST_PROXY: 'true', EVENTS_MAX_STREAMS_PER_CLIENT: '100000', ...setup.env };
  const started = [];
  try {
    for (let i = 0; i < instances; i++) started.push(await startChild([...SERVE_NODE_FLAGS, BOARD, 'serve'], env));
    const boards = started.map((s) => ({ url: s.url, pid: s.child.pid! }));
    for (let i = 0; i < SEEDED; i++) {
      await fetch(`${boards[i % boards.length]!.url}/findings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: sentence(i), topics: ['seed'] }) });
    }
    await setup.steady();
    const out: Measured[] = [];
    for (const agents of BENCH.SWARM_SIZES) out.push(await measure(name, boards, agents, setup.name === 'PostgreSQL'));
    return out;
  } finally {
    for (const s of started) {
      s.child.kill('SIGTERM');
      await new Promise((r) => s.child.once('exit', r));
    }
  }
}

function report(results: Measured[], minutes: string): string {
  const rows = results.flatMap((m) =>
    OPERATIONS.map(
      (op, i) =>
        `| ${m.setup} | ${m.agents} | ${op} | ${m.ops[op]!.p50.toFixed(1)} | ${m.ops[op]!.p99.toFixed(1)} | ${m.ops[op]!.errors} | ${m.ops[op]!.perSecond.toFixed(0)} | ${i === 0 ? `${m.boardCores.toFixed(2)}${m.dbCores === null ? '' : ` + ${m.dbCores.toFixed(2)}`}` : ''} | ${i === 0 ? m.rssMiB.toFixed(0) : ''} |`,
    ),
  );
  const setups = [...new Set(results.map((m) => m.setup))];
  const capacity = setups.map((s) => {
    const held = results.filter((m) => m.setup === s && OPERATIONS.every((op) => m.ops[op]!.p99 < P99_GOAL_MS && m.ops[op]!.errors === 0));
    return `- ${s}: ${held.length ? `${Math.max(...held.map((m) => m.agents))} agents` : `none of the sizes measured`} with every p99 under ${P99_GOAL_MS} ms and no error.`;
  });
  return `## Agents one instance carries

Produced by \`npm run bench:swarm\` (src/bench/swarm.ts) on ${new Date().toISOString().slice(0, 10)}, commit ${commit()}, in ${minutes} min; ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node.js ${process.version}.

Each agent searches (two words of the bench vocabulary, hybrid), reads two results, publishes one time in five and verifies one time in five, pausing ${BENCH.SWARM_THINK_MS} ms (±50%) between steps; one agent in ten holds an event stream. Each size runs ${BENCH.SWARM_WARMUP} s unmeasured, then ${BENCH.SWARM_SECONDS} s measured. The boards are started as \`npm start\` starts them, seeded with ${SEEDED} findings, rate limits off; the agents (this process) share the machine's cores with them. Two instances share the agents, half each, on one PostgreSQL schema and one Redis. CPU is the boards' (and, after the +, PostgreSQL's processes') cores in use over the measured seconds; RSS the largest instance's at the end.

| setup | agents | operation | p50 ms | p99 ms | errors | per s | CPU cores | RSS MiB |
|---|---:|---|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

Largest size held:
${capacity.join('\n')}
`;
}

async function main(): Promise<void> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-swarm-'));
  const all = await storeSetups(dir);
  // BENCH_STORES=sqlite (or postgresql) measures one store only.
  const only = BENCH.BENCH_STORES?.map((s) => s.toLowerCase());
  const results: Measured[] = [];
  try {
    for (const setup of all.filter((s) => !only || only.includes(s.name.toLowerCase()))) {
      results.push(...(await measureSetup(`${setup.name}, one instance`, setup, 1)));
      if (setup.name === 'PostgreSQL') results.push(...(await measureSetup('PostgreSQL, two instances', setup, 2)));
    }
  } finally {
    for (const s of all) await s.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  const md = report(results, ((Date.now() - started) / 60_000).toFixed(1));
  writeSection(join(PACKAGE_ROOT, 'BENCHMARKS.md'), 'swarm', md);
  process.stdout.write(`\n${md}\nwritten to BENCHMARKS.md\n`);
}

main().catch((e) => {
  process.stderr.write(`bench:swarm failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});
