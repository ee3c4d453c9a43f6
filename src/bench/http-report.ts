/** The section `npm run bench` writes to BENCHMARKS.md: how it measured, then the table of rows against their goals. */
import { cpus, totalmem } from 'node:os';
import { SERVE_NODE_FLAGS } from '../cli/serve-flags.js';
import { commit } from './sections.js';
import { BENCH } from './settings.js';
import { VOCABULARY } from './vocabulary.js';

export interface Measured {
  rps: number;
  /** req/s of each turn's slice, in turn order. */
  turns: number[];
  p50: number;
  p99: number;
  /** Errors, timeouts and non-2xx answers. */
  failures: number;
  /** CPU time per completed request, µs: the serving process's, and the database server's (PostgreSQL); null where /proc cannot tell. */
  cpuUs: number | null;
  dbUs: number | null;
}

export interface Row {
  operation: string;
  board: Measured;
  floorName: string;
  floor: Measured;
  goal: number;
  /** Compared by p99 / p50 instead of throughput. */
  tail?: boolean;
}

/** A side's CPU time per request in µs: its serving process's, then (PostgreSQL) the database server's after a +; – where unknown. */
export function cpuText(m: Measured): string {
  if (m.cpuUs === null) return '–';
  return m.dbUs === null ? `${Math.round(m.cpuUs)}` : `${Math.round(m.cpuUs)} + ${Math.round(m.dbUs)}`;
}

export function tableOf(results: { store: string; rows: Row[] }[]): string {
  const lines = [
    '| store | operation | board req/s | board p50 ms | board p99 ms | floor | floor req/s | board / floor | CPU µs/req, board / floor | goal | met |',
    '|---|---|---:|---:|---:|---|---:|---:|---:|---|---|',
  ];
  for (const { store, rows } of results) {
    for (const r of rows) {
      if (r.tail) {
        const ratio = r.board.p99 / Math.max(1, r.board.p50);
        lines.push(`| ${store} | ${r.operation} | | ${r.board.p50} | ${r.board.p99} | ${r.floorName} | | p99 = ${ratio.toFixed(1)} × p50 | | ≤ ${r.goal} × | ${ratio <= r.goal ? 'yes' : '**no**'} |`);
        continue;
      }
      const ratio = r.board.rps / r.floor.rps;
      const met = ratio >= r.goal && r.board.failures === 0;
      // Each turn's board slice against its floor slice: how far one run's ratio can be trusted.
      const turns = r.board.turns.map((b, i) => (100 * b) / r.floor.turns[i]!);
      // Whole per cents, rounded down: a ratio shown at its goal has met it.
      const spread = `${Math.floor(Math.min(...turns))}–${Math.floor(Math.max(...turns))}%`;
      lines.push(
        `| ${store} | ${r.operation} | ${Math.round(r.board.rps)} | ${r.board.p50} | ${r.board.p99} | ${r.floorName} | ${Math.round(r.floor.rps)} | ${Math.floor(ratio * 100)}% (${spread}) | ${cpuText(r.board)} / ${cpuText(r.floor)} | ≥ ${r.goal * 100}% | ${met ? 'yes' : '**no**'} |`,
      );
    }
  }
  return lines.join('\n');
}

/** The section's text, around the table. */
export function httpReport(c: { queries: number; minutes: string; stores: string[]; table: string; errors: string; newQueries: number }): string {
  const { BENCH_DURATION: DURATION_S, BENCH_SLICES: SLICES, BENCH_WARMUP: WARMUP_S, BENCH_CONNECTIONS: READ_CONNECTIONS, BENCH_WRITE_CONNECTIONS: WRITE_CONNECTIONS, BENCH_SEED: SEED } = BENCH;
  return `## HTTP throughput against the floors

Produced by \`npm run bench\` (src/bench/run.ts) on ${new Date().toISOString().slice(0, 10)}, commit ${commit()}, in ${c.minutes} min.

- Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node.js ${process.version}. Load generator (autocannon, this process), board and floor are separate processes sharing the machine${c.stores.length > 1 ? ' (with PostgreSQL and Redis besides)' : ''}; each side of a row first runs ${WARMUP_S} s unmeasured, then ${DURATION_S} s in ${SLICES} slices taken in turn with the other side's, each turn in the reverse order of the last (board, floor, floor, board…), so that a drift in the machine's speed during the run falls on both sides alike, and each slice starts once the board has answered every request the last one left in flight; reads on ${READ_CONNECTIONS} connections, publishes on ${WRITE_CONNECTIONS}; req/s is the requests completed over the slices' time, and p50 and p99 come from the slices' merged latency histograms. Board / floor is the row's ratio, then in brackets the lowest and the highest of its turns (each turn's board slice against its floor slice): on this kind of machine one run's ratio moves by up to a fifth from run to run, so a ratio whose turns straddle its goal is no verdict. CPU µs/req is where the machine's time went, per completed request over the same slices (src/bench/cpu.ts, from /proc): the serving process's user and system time, all its threads (on SQLite its queries run there too), and on PostgreSQL, after the +, the database server's processes' (every \`postgres\` process: the board's or the floor's backends, and the server's own); the load generator's is in neither.
- Board: one \`agentboard serve\` process per store (${c.stores.join(', ')}${c.stores.length > 1 ? '; PostgreSQL 15 with a pool of 10 and the default pipelined connections (publishes; searches and reads by key), Redis for rate limits and nonces, vectors in process memory' : ''}), started as \`npm start\` starts it (\`node ${SERVE_NODE_FLAGS.join(' ')} dist/cli/main.js serve\`), seeded over HTTP with ${SEED} findings of 12–30 words from a ${VOCABULARY.length}-word technical vocabulary, embedded with the bundled model before the first row${c.stores.includes('PostgreSQL') ? ' (on PostgreSQL every table then analyzed, as autovacuum does within a minute of a table changing by a tenth: measured at once, the planner would still be guessing from no statistics)' : ''}; rate limits off, one JSON log line per request (to a file, as a collector would take it).
- Search rows cycle through ${c.queries} two-word queries, which the board keeps in its cache of search candidates from their second round (a search asked once keeps nothing) and answers from it after that (exact: nothing is written meanwhile; see docs/performance.md, Reads are cached, exactly); the rows marked "every query new" send ${c.newQueries.toLocaleString('en')} distinct two-word queries in turn, more than a row gets through, so each is a miss and the full-text query runs every time (its words are not new: the per-word facts a store keeps while exact, such as word counts and, on PostgreSQL, which rows a common word's newest matches are, serve these searches as they would any board's). POST rows publish a distinct text per request: each is a real insert with its dedupe check, its event and its vector (embedded as it is published; what the queue would take instead is embedded before the floor's slice starts).
- Floors, each a bare \`node:http\` process (src/bench/floor-server.ts): the same bytes for reads; for lexical search the engine's own query over the same objects, all before the board's publishes (${c.stores.map((name) => (name === 'PostgreSQL' ? 'PostgreSQL: `plainto_tsquery` match of all words, `ts_rank`, expiry filter, top 10' : 'SQLite: FTS5 `MATCH` of all words, `bm25(4,2,1)`, `snippet`, expiry join, top 10')).join('; ')}); for publishing one insert into a full-text-indexed table.

${c.table}

Errors and non-2xx answers: ${c.errors}.
`;
}
