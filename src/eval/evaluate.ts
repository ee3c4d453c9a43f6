/**
 * Search quality on the eval set: builds a fresh board from the corpus through the import code
 * (objects back-dated by age_days, counts set, 400-day expiry), embeds it with the offline
 * model, and sends every query to `GET /search` with its filters and `limit=10` in each mode.
 * Metrics as eval/README.md defines them. Used by `npm run eval` and by the quality test.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buildBoard } from '../compose.js';
import { loadConfig, type Config } from '../config.js';
import { createLogger } from '../log.js';
import { BUNDLED_MODEL, EVAL_DIR } from '../paths.js';
import { importNdjson } from '../service/transfer/ndjson-import.js';
import { ndcgAt10, recallAt5, reciprocalRank } from './metrics.js';

const DAY = 86_400_000;
export const MODES = ['hybrid', 'lexical', 'semantic'] as const;
export type Mode = (typeof MODES)[number];
export const GROUPS = ['all', 'lexical', 'semantic', 'mixed'] as const;
export type Group = (typeof GROUPS)[number];

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

export interface Metrics {
  ndcg: number;
  mrr: number;
  recall: number;
  queries: number;
}

export interface Evaluation {
  /** Mean metrics per mode and query group (`all` and each mode_hint). */
  means: Record<Mode, Partial<Record<Group, Metrics>>>;
  corpusSize: number;
  queryCount: number;
  model: string;
  notLive: number;
  degraded: number;
  search: Config['limits']['search'];
}

export interface EvalOptions {
  corpusFile?: string;
  queriesFile?: string;
  model?: string;
  /** SEARCH_* / FRESHNESS_* settings to try instead of the defaults. */
  settings?: Record<string, string>;
}

export async function evaluate(o: EvalOptions = {}): Promise<Evaluation> {
  const corpus = JSON.parse(readFileSync(o.corpusFile ?? join(EVAL_DIR, 'corpus.json'), 'utf8')) as CorpusObject[];
  const queries = JSON.parse(readFileSync(o.queriesFile ?? join(EVAL_DIR, 'queries-dev.json'), 'utf8')) as Query[];
  const model = o.model ?? BUNDLED_MODEL;
  const dir = mkdtempSync(join(tmpdir(), 'agentboard-eval-'));
  const config = loadConfig({
    DATABASE_URL: `sqlite:${join(dir, 'eval.db')}`,
    BASE_URL: 'http://eval.local',
    EMBEDDINGS: 'local',
    EMBEDDINGS_MODEL: model,
    RATE_LIMIT_READS: '0',
    RATE_LIMIT_ANON_WRITES: '0',
    REGISTRY_URL: 'off',
    // Offline model, cold start: give the first query time to load it.
    SEMANTIC_BUDGET_MS: '5000',
    ...o.settings,
  });
  const board = await buildBoard(config, createLogger('warn'));
  try {
    const now = board.services.clock.now();
    const lines = corpus.map((c) =>
      JSON.stringify({
        type: c.type,
        title: c.title,
        content: c.content,
        topics: c.topics,
        source_url: c.source_url ?? null,
        created_at: new Date(now - c.age_days * DAY).toISOString(),
        expires_at: new Date(now + 400 * DAY).toISOString(),
        verification_count: c.verifications,
        contradiction_count: c.contradictions,
      }),
    );
    await importNdjson(board.services.store, Readable.from(lines.map((l) => `${l}\n`)), { now, limits: config.limits });
    if (!board.worker) throw new Error('the eval needs the semantic leg: sqlite-vec and the model must load');
    await board.worker.drain();
    const left = await board.services.store.embeddings.size();
    if (left > 0) throw new Error(`${left} objects could not be embedded`);

    const keyByContent = new Map(corpus.map((c) => [c.content.trim(), c.key]));
    const rows: Record<Mode, Partial<Record<Group, Omit<Metrics, 'queries'>[]>>> = { hybrid: {}, lexical: {}, semantic: {} };
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
        for (const group of ['all', q.mode_hint] as const) (rows[mode][group] ??= []).push(row);
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
    const means = Object.fromEntries(
      MODES.map((mode) => [
        mode,
        Object.fromEntries(
          Object.entries(rows[mode]).map(([g, r]) => [g, { ndcg: mean(r.map((x) => x.ndcg)), mrr: mean(r.map((x) => x.mrr)), recall: mean(r.map((x) => x.recall)), queries: r.length }]),
        ),
      ]),
    ) as Evaluation['means'];
    return { means, corpusSize: corpus.length, queryCount: queries.length, model, notLive, degraded, search: config.limits.search };
  } finally {
    await board.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
