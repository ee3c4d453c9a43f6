/**
 * `npm run bench:quarantine`: how long quarantining a source takes, and its lift, on each store.
 * A key that wrote QUARANTINE_OBJECTS objects and cast QUARANTINE_VOTES votes on others' objects
 * is quarantined through the service, as `POST /admin/quarantine` does, while a reader lists and
 * reads objects without pause: its answers and their latency show that reads go on meanwhile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { buildBoard } from '../compose.js';
import { loadConfig } from '../config.js';
import { derivedFields } from '../domain/derived.js';
import { eventOf } from '../domain/events.js';
import type { AuthorRef } from '../domain/model.js';
import { createLogger } from '../log.js';
import { PACKAGE_ROOT } from '../paths.js';
import { storeSetups, type StoreSetup } from './child.js';
import { commit, writeSection } from './sections.js';
import { sentence } from './vocabulary.js';

const OBJECTS = 10_000;
const VOTES = 5_000;
const GOAL_S = 10;
const CHUNK = 200;

interface Row {
  store: string;
  quarantineS: number;
  liftS: number;
  affected: number;
  reads: number;
  readMaxMs: number;
  readP99Ms: number;
}

async function measure(setup: StoreSetup): Promise<Row> {
  const config = loadConfig({ ...setup.env, LOG_LEVEL: 'silent', EMBEDDINGS: 'none', REGISTRY_URL: 'off', RATE_LIMIT_READS: '0', RATE_LIMIT_ANON_WRITES: '0' });
  const board = await buildBoard(config, createLogger('silent'));
  try {
    const { store, board: verbs, quarantines } = board.services;
    const live = verbs.live();
    const poisoner: AuthorRef = { id: 'bench-poisoner', trustLevel: 'signed', domain: null };
    const publish = async (n: number, author: AuthorRef | null) => {
      const written = { type: 'finding' as const, title: undefined, content: `${sentence(n)} #${n}`, topics: ['quarantine-bench'], sourceUrl: null, parentId: null, author };
      const row = { ...written, ...derivedFields(written), id: verbs.deps.ids.next(), createdAt: live.now, expiresAt: live.now + 30 * 86_400_000 };
      return (await store.publish(row, live, eventOf('created', row, live.now))).object.id;
    };
    let n = 0;
    process.stdout.write(`— ${setup.name}: seeding ${OBJECTS} objects of the key and ${VOTES} objects it votes on…\n`);
    for (let i = 0; i < OBJECTS; i += CHUNK) await Promise.all(Array.from({ length: Math.min(CHUNK, OBJECTS - i) }, () => publish(n++, poisoner)));
    const targets: string[] = [];
    for (let i = 0; i < VOTES; i += CHUNK) targets.push(...(await Promise.all(Array.from({ length: Math.min(CHUNK, VOTES - i) }, () => publish(n++, null)))));
    for (let i = 0; i < VOTES; i += CHUNK) {
      await Promise.all(targets.slice(i, i + CHUNK).map((id, j) => store.votes.cast({ objectId: id, voterId: poisoner.id, kind: (i + j) % 3 ? 'verify' : 'contradict', note: null, evidenceUrl: null }, live)));
    }
    await setup.steady();

    const latencies: number[] = [];
    let reading = true;
    const reader = (async () => {
      for (let i = 0; reading; i++) {
        const t = performance.now();
        await verbs.list('finding', {}, { limit: 20 });
        await store.objects.get(targets[i % targets.length]!, verbs.live());
        latencies.push(performance.now() - t);
        // A read from SQLite resolves without waiting on I/O: without a turn of the event loop, this reader would be all it ran.
        await new Promise((r) => setImmediate(r));
      }
    })();
    let t = performance.now();
    const opened = await quarantines.open({ keyid: poisoner.id, reason: 'bench' });
    const quarantineS = (performance.now() - t) / 1000;
    t = performance.now();
    await quarantines.lift(opened.record.id);
    const liftS = (performance.now() - t) / 1000;
    reading = false;
    await reader;
    const sorted = [...latencies].sort((a, b) => a - b);
    const row = {
      store: setup.name,
      quarantineS,
      liftS,
      affected: opened.record.affected,
      reads: latencies.length,
      readMaxMs: sorted.at(-1) ?? 0,
      readP99Ms: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
    };
    process.stdout.write(`  quarantine ${quarantineS.toFixed(2)} s (${row.affected} affected), lift ${liftS.toFixed(2)} s; ${row.reads} reads meanwhile, p99 ${row.readP99Ms.toFixed(1)} ms, max ${row.readMaxMs.toFixed(1)} ms\n`);
    return row;
  } finally {
    await board.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-quarantine-'));
  const setups = await storeSetups(dir);
  const rows: Row[] = [];
  try {
    for (const setup of setups) rows.push(await measure(setup));
  } finally {
    for (const s of setups) await s.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  const md = `## Quarantining a source

Produced by \`npm run bench:quarantine\` (src/bench/quarantine.ts) on ${new Date().toISOString().slice(0, 10)}, commit ${commit()}; ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node.js ${process.version}.

A key that wrote ${OBJECTS} objects and cast ${VOTES} votes (two verifications for each contradiction) on ${VOTES} objects of others is quarantined through the service, as \`POST /admin/quarantine\` does (batches of \`QUARANTINE_BATCH\`, the default), then the quarantine is lifted. Meanwhile one reader lists the newest findings and reads an object by id, without pause; a read is both. Settings as \`npm start\` has them; on PostgreSQL a schema of its own, analyzed after seeding.

| store | quarantine s | affected | lift s | reads meanwhile | read p99 ms | read max ms | goal | met |
|---|---:|---:|---:|---:|---:|---:|---|---|
${rows.map((r) => `| ${r.store} | ${r.quarantineS.toFixed(2)} | ${r.affected} | ${r.liftS.toFixed(2)} | ${r.reads} | ${r.readP99Ms.toFixed(1)} | ${r.readMaxMs.toFixed(1)} | quarantine ≤ ${GOAL_S} s | ${r.quarantineS <= GOAL_S ? 'yes' : '**no**'} |`).join('\n')}
`;
  writeSection(join(PACKAGE_ROOT, 'BENCHMARKS.md'), 'quarantine', md);
  process.stdout.write(`\n${md}\nwritten to BENCHMARKS.md\n`);
}

main().catch((e) => {
  process.stderr.write(`bench:quarantine failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});
