/**
 * `npm run eval`: search quality on eval/ (the corpus and dev queries the repository carries). Builds a fresh board from corpus.json
 * through the import code (objects back-dated by age_days, counts set, 400-day expiry),
 * embeds it with the offline model, runs queries-dev.json over HTTP in all three modes, and
 * prints nDCG@10, MRR and recall@5 per mode_hint; the table goes to EVAL.md.
 *
 * Metrics as eval/README.md defines them. EVAL_QUERIES / EVAL_CORPUS / EVAL_MODEL
 * point elsewhere (a held-out set, another model).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buildBoard } from '../compose.js';
import { loadConfig } from '../config.js';
import { createLogger } from '../log.js';
import { BUNDLED_MODEL, EVAL_DIR, PACKAGE_ROOT } from '../paths.js';
import { importNdjson } from '../transfer/ndjson-import.js';
import { ndcgAt10, recallAt5, reciprocalRank } from './metrics.js';

const DAY = 86_400_000;
const MODES = ['hybrid', 'lexical', 'semantic'] as const;
type Mode = (typeof MODES)[number];

interface CorpusObject {
  key: string;
  type: string;
  title: string;
  content: string;
  topics: string[];
  source_url?: string;
  age_days: number;
  verifications: number;
  contradictions: number;
}

interface Query {
  qid: string;
  q: string;
  mode_hint: 'lexical' | 'semantic' | 'mixed';
  filters?: { type?: string[]; topic?: string[] };
  relevant: Record<string, number>;
}

async function main(): Promise<void> {
  const corpus = JSON.parse(readFileSync(process.env.EVAL_CORPUS ?? join(EVAL_DIR, 'corpus.json'), 'utf8')) as CorpusObject[];
  const queries = JSON.parse(readFileSync(process.env.EVAL_QUERIES ?? join(EVAL_DIR, 'queries-dev.json'), 'utf8')) as Query[];
  const model = process.env.EVAL_MODEL ?? BUNDLED_MODEL;
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-eval-'));
  const config = loadConfig({
    DATABASE_URL: `sqlite:${join(dir, 'eval.db')}`,
    BASE_URL: 'http://eval.local',
    EMBEDDINGS: 'local',
    EMBEDDINGS_MODEL: model,
    RATE_LIMIT_READS: '0',
    RATE_LIMIT_ANON_WRITES: '0',
    // Offline model, cold start: give the first query time to load it.
    SEMANTIC_BUDGET_MS: '5000',
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('SEARCH_') || k.startsWith('FRESHNESS_'))),
  });
  const board = await buildBoard(config, createLogger('warn'));
  try {
    const now = board.services.clock.now();
    const lines = corpus.map((o) =>
      JSON.stringify({
        type: o.type,
        title: o.title,
        content: o.content,
        topics: o.topics,
        source_url: o.source_url ?? null,
        created_at: new Date(now - o.age_days * DAY).toISOString(),
        expires_at: new Date(now + 400 * DAY).toISOString(),
        verification_count: o.verifications,
        contradiction_count: o.contradictions,
      }),
    );
    await importNdjson(board.services.store, Readable.from(lines.map((l) => `${l}\n`)), { now, limits: config.limits });
    if (!board.worker) throw new Error('the eval needs the semantic leg: sqlite-vec and the model must load');
    await board.worker.drain();
    const left = await board.services.store.embedQueueSize();
    if (left > 0) throw new Error(`${left} objects could not be embedded`);

    const keyByContent = new Map(corpus.map((o) => [o.content.trim(), o.key]));
    type Row = { ndcg: number; mrr: number; recall: number };
    const rows: Record<Mode, Record<string, Row[]>> = { hybrid: {}, lexical: {}, semantic: {} };
    let notLive = 0;
    let degraded = 0;
    for (const mode of MODES) {
      for (const q of queries) {
        const params = new URLSearchParams({ q: q.q, mode, limit: '10' });
        for (const t of q.filters?.type ?? []) params.append('type', t);
        for (const t of q.filters?.topic ?? []) params.append('topic', t);
        const res = await board.app.request(`/search?${params}`);
        const body = (await res.json()) as { results: { content: string; state: string }[]; degraded: string[] };
        if (res.status !== 200) throw new Error(`${q.qid} ${mode}: HTTP ${res.status}`);
        if (body.degraded.length) degraded++;
        notLive += body.results.filter((r) => r.state !== 'live').length;
        const ranked = body.results.map((r) => keyByContent.get(r.content.trim()) ?? '?');
        const row = { ndcg: ndcgAt10(ranked, q.relevant), mrr: reciprocalRank(ranked, q.relevant), recall: recallAt5(ranked, q.relevant) };
        for (const group of ['all', q.mode_hint]) (rows[mode][group] ??= []).push(row);
      }
    }

    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
    const groups = ['all', 'lexical', 'semantic', 'mixed'];
    const table = [
      '| mode | queries | nDCG@10 | MRR | recall@5 |',
      '|---|---|---:|---:|---:|',
      ...MODES.flatMap((mode) =>
        groups
          .filter((g) => rows[mode][g])
          .map((g) => {
            const r = rows[mode][g]!;
            return `| ${mode} | ${g} (${r.length}) | ${mean(r.map((x) => x.ndcg)).toFixed(3)} | ${mean(r.map((x) => x.mrr)).toFixed(3)} | ${mean(r.map((x) => x.recall)).toFixed(3)} |`;
          }),
      ),
    ].join('\n');
    const s = config.limits.search;
    const md = `# Search quality

Produced by \`npm run eval\` (src/eval/run.ts) on ${new Date().toISOString().slice(0, 10)}: ${corpus.length} objects from \`eval/corpus.json\` imported through the import code (back-dated by \`age_days\`, counts set, expiring in 400 days) and embedded with \`${model.split('/').pop()}\`; ${queries.length} queries from \`${(process.env.EVAL_QUERIES ?? 'queries-dev.json').split('/').pop()}\`, each sent to \`GET /search\` with its filters and \`limit=10\` in every mode.

Ranking parameters: semantic weight ${s.semanticWeight}, hybrid tier weight ${s.hybridTierWeight}, freshness half-life ${s.halfLifeDays} days with floor ${s.freshnessFloor}, ${s.candidates} candidates per leg.

${table}

Results that were not live: ${notLive}. Answers with a degraded leg: ${degraded}.
`;
    writeFileSync(join(PACKAGE_ROOT, 'EVAL.md'), md);
    process.stdout.write(`${table}\n\nnot live: ${notLive}, degraded answers: ${degraded}\nwritten to EVAL.md\n`);
  } finally {
    await board.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`eval failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});
