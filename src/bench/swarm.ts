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
import { commandCpuMs, machineBusyMs, processCpuMs } from './cpu.js';
import { commit, writeSection } from './sections.js';
import { BENCH } from './settings.js';
import { agent, newTally, OPERATIONS, type Tally } from './swarm-agents.js';
import { sentence } from './vocabulary.js';

const BOARD = join(PACKAGE_ROOT, 'dist/cli/main.js');
const SEEDED = 500;
/** The goal each size is held to: every operation's p99 under this, and no error. */
const P99_GOAL_MS = 100;
/** Past capacity, what is admitted must still be answered within this (its p99). */
const ADMITTED_P99_GOAL_MS = 250;

interface Measured {
  setup: string;
  agents: number;
  ops: Record<string, { p50: number; p99: number; errors: number; shed: number; perSecond: number }>;
  boardCores: number;
  dbCores: number | null;
  /** The agents' own process, and the whole machine (every process, the kernel's work too). */
  agentsCores: number;
  machineCores: number;
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
  const before = { board: cpu(), db: pg ? commandCpuMs('postgres') : null, agents: processCpuMs(process.pid) ?? 0, machine: machineBusyMs() ?? 0, t: performance.now() };
  tally.open = true;
  await new Promise((r) => setTimeout(r, seconds * 1000));
  tally.open = false;
  const after = { board: cpu(), db: pg ? commandCpuMs('postgres') : null, agents: processCpuMs(process.pid) ?? 0, machine: machineBusyMs() ?? 0, t: performance.now() };
  const rss = Math.max(...boards.map((b) => rssMiB(b.pid)));
  await Promise.all(running);
  const wall = after.t - before.t;
  const ops = Object.fromEntries(
    OPERATIONS.map((op) => {
      const l = tally.latencies[op];
      return [op, { p50: percentile(l, 50), p99: percentile(l, 99), errors: tally.errors[op], shed: tally.shed[op], perSecond: (l.length * 1000) / wall }];
    }),
  );
  const cores = (a: number, b: number) => (b - a) / wall;
  const m: Measured = {
    setup,
    agents,
    ops,
    boardCores: cores(before.board, after.board),
    dbCores: before.db !== null && after.db !== null ? cores(before.db, after.db) : null,
    agentsCores: cores(before.agents, after.agents),
    machineCores: cores(before.machine, after.machine),
    rssMiB: rss,
  };
  const said = OPERATIONS.map((op) => `${op} p99 ${ops[op]!.p99.toFixed(0)} ms (${ops[op]!.errors} errors, ${ops[op]!.shed} shed)`).join(', ');
  process.stdout.write(`  ${agents} agents: ${said}; board ${m.boardCores.toFixed(2)} cores, machine ${m.machineCores.toFixed(2)}, ${rss.toFixed(0)} MiB\n`);
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

/** A size is held when every operation's p99 is under the goal, with no error and nothing shed. */
const held = (m: Measured) => OPERATIONS.every((op) => m.ops[op]!.p99 < P99_GOAL_MS && m.ops[op]!.errors === 0 && m.ops[op]!.shed === 0);

/** Per setup: the largest size held, and how each larger size was met (what was admitted, what was shed). */
function capacity(results: Measured[]): string[] {
  return [...new Set(results.map((m) => m.setup))].map((s) => {
    const sizes = results.filter((m) => m.setup === s);
    const most = Math.max(0, ...sizes.filter(held).map((m) => m.agents));
    const past = sizes
      .filter((m) => m.agents > most)
      .map((m) => {
        const answered = OPERATIONS.reduce((n, op) => n + m.ops[op]!.perSecond, 0);
        const shed = OPERATIONS.reduce((n, op) => n + m.ops[op]!.shed, 0);
        const errors = OPERATIONS.reduce((n, op) => n + m.ops[op]!.errors, 0);
        const worst = Math.max(...OPERATIONS.map((op) => m.ops[op]!.p99));
        const kept = errors === 0 && worst < ADMITTED_P99_GOAL_MS;
        const verdict = kept ? (shed > 0 ? 'shed load and kept' : 'kept') : 'did not keep';
        return `at ${m.agents}, it ${verdict} every admitted p99 under ${ADMITTED_P99_GOAL_MS} ms (worst ${worst.toFixed(0)} ms; ${answered.toFixed(0)} answered a second, ${shed} refused with 503 overloaded, ${errors} errors)`;
      });
    const heldSaid = most ? `${most} agents with every p99 under ${P99_GOAL_MS} ms, no error and nothing shed` : `none of the sizes measured with every p99 under ${P99_GOAL_MS} ms, no error and nothing shed`;
    return `- ${s}: ${heldSaid}${past.length ? `; ${past.join('; ')}` : ''}.`;
  });
}

function report(results: Measured[], minutes: string): string {
  const rows = results.flatMap((m) =>
    OPERATIONS.map((op, i) => {
      const o = m.ops[op]!;
      const machine = i === 0 ? `${m.boardCores.toFixed(2)}${m.dbCores === null ? '' : ` + ${m.dbCores.toFixed(2)}`} | ${m.agentsCores.toFixed(2)} | ${m.machineCores.toFixed(2)} | ${m.rssMiB.toFixed(0)}` : ' |  |  | ';
      return `| ${m.setup} | ${m.agents} | ${op} | ${o.p50.toFixed(1)} | ${o.p99.toFixed(1)} | ${o.errors} | ${o.shed} | ${o.perSecond.toFixed(0)} | ${machine} |`;
    }),
  );
  return `## Agents one instance carries

Produced by \`npm run bench:swarm\` (src/bench/swarm.ts) on ${new Date().toISOString().slice(0, 10)}, commit ${commit()}, in ${minutes} min; ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node.js ${process.version}.

Each agent searches (two words of the bench vocabulary, hybrid), reads two results, publishes one time in five and verifies one time in five, pausing ${BENCH.SWARM_THINK_MS} ms (±50%) between steps; one agent in ten holds an event stream. Each size runs ${BENCH.SWARM_WARMUP} s unmeasured, then ${BENCH.SWARM_SECONDS} s measured (a step counts when it began in them). The boards are started as \`npm start\` starts them (load shedding at its default), seeded with ${SEEDED} findings, rate limits off; the agents (this process, over kept-alive sockets) share the machine's cores with them. Two instances share the agents, half each, on one PostgreSQL schema and one Redis. Latencies are of the steps answered 2xx; shed counts 503 overloaded answers (with Retry-After), errors every other failure (another status, a network error, no answer within 10 s). CPU is in cores used over the measured seconds: the boards' (after the +, PostgreSQL's processes'), the agents' process, and the whole machine (every process and the kernel); RSS the largest instance's at the end.

| setup | agents | operation | p50 ms | p99 ms | errors | shed | per s | board CPU | agents CPU | machine CPU | RSS MiB |
|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

Largest size held, and past it:
${capacity(results).join('\n')}
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
