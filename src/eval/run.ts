/**
 * `npm run eval`: search quality on eval/ (the corpus and dev queries the repository carries),
 * printed as nDCG@10, MRR and recall@5 per mode and mode_hint, and written to EVAL.md.
 * EVAL_QUERIES / EVAL_CORPUS / EVAL_MODEL point elsewhere (a held-out set, another model);
 * SEARCH_* and FRESHNESS_* settings in the environment are applied.
 */
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';
import { evaluate, GROUPS, MODES } from './evaluate.js';

async function main(): Promise<void> {
  const queriesFile = process.env.EVAL_QUERIES;
  const e = await evaluate({
    ...(process.env.EVAL_CORPUS ? { corpusFile: process.env.EVAL_CORPUS } : {}),
    ...(queriesFile ? { queriesFile } : {}),
    ...(process.env.EVAL_MODEL ? { model: process.env.EVAL_MODEL } : {}),
    settings: Object.fromEntries(
      Object.entries(process.env).filter((kv): kv is [string, string] => (kv[0].startsWith('SEARCH_') || kv[0].startsWith('FRESHNESS_')) && kv[1] !== undefined),
    ),
  });
  const table = [
    '| mode | queries | nDCG@10 | MRR | recall@5 |',
    '|---|---|---:|---:|---:|',
    ...MODES.flatMap((mode) =>
      GROUPS.flatMap((g) => {
        const m = e.means[mode][g];
        return m ? [`| ${mode} | ${g} (${m.queries}) | ${m.ndcg.toFixed(3)} | ${m.mrr.toFixed(3)} | ${m.recall.toFixed(3)} |`] : [];
      }),
    ),
  ].join('\n');
  const s = e.search;
  const md = `# Search quality

Produced by \`npm run eval\` (src/eval/run.ts) on ${new Date().toISOString().slice(0, 10)}: ${e.corpusSize} objects from \`eval/corpus.json\` imported through the import code (back-dated by \`age_days\`, counts set, expiring in 400 days) and embedded with \`${basename(e.model)}\`; ${e.queryCount} queries from \`${basename(queriesFile ?? 'queries-dev.json')}\`, each sent to \`GET /search\` with its filters and \`limit=10\` in every mode. \`npm test\` checks the same figures (test/search/quality.test.ts).

Ranking parameters: semantic weight ${s.semanticWeight}, hybrid tier weight ${s.hybridTierWeight}, relevance exponent ${s.relevanceExponent}, freshness half-life ${s.halfLifeDays} days with floor ${s.freshnessFloor}, ${s.candidates} candidates per leg; relevance floors: lexical ${s.lexicalFloor} of the best (unless every query word is held), semantic ${s.semanticFloor} of the best and at least ${s.semanticMinSimilarity} cosine.

${table}

Results that were not live: ${e.notLive}. Answers with a degraded leg: ${e.degraded}.
`;
  writeFileSync(join(PACKAGE_ROOT, 'EVAL.md'), md);
  process.stdout.write(`${table}\n\nnot live: ${e.notLive}, degraded answers: ${e.degraded}\nwritten to EVAL.md\n`);
}

main().catch((e) => {
  process.stderr.write(`eval failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});
