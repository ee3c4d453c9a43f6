import Database from 'better-sqlite3';
import { VOCABULARY } from './dist/bench/vocabulary.js';
const db = new Database('/tmp/prof/board.db', { readonly: true });
const qs = Array.from({ length: 40 }, (_, i) => [VOCABULARY[(i * 7 + 3) % VOCABULARY.length], VOCABULARY[(i * 13 + 11) % VOCABULARY.length]]);
const now = Date.now();
const live = `o.live_until > @now`;
const SEL = `o.*, (SELECT count(*) FROM objects r WHERE r.parent_id = o.id AND r.live_until > @now) AS reply_count, EXISTS (SELECT 1 FROM reputable_authors ra WHERE ra.author_id = o.author_id) AS author_reputable`;
const variants = {
  hitsOnly: (fts) => `SELECT o.seq, bm25(${fts}, 4.0, 2.0, 1.0) AS score FROM ${fts} JOIN objects o ON o.seq = ${fts}.rowid WHERE ${fts} MATCH @all AND ${live} ORDER BY score LIMIT 200`,
  hitsNoJoin: (fts) => `SELECT rowid, bm25(${fts}, 4.0, 2.0, 1.0) AS score FROM ${fts} WHERE ${fts} MATCH @all ORDER BY score LIMIT 200`,
  full: (fts) => `WITH hits AS (SELECT o.seq, bm25(${fts}, 4.0, 2.0, 1.0) AS score FROM ${fts} JOIN objects o ON o.seq = ${fts}.rowid WHERE ${fts} MATCH @all AND ${live} ORDER BY score LIMIT 200)
       SELECT ${SEL}, -hits.score AS relevance, hits.seq IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH @all) AS all_terms, hits.seq IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH @phrase) AS phrase FROM hits JOIN objects o ON o.seq = hits.seq ORDER BY hits.score`,
  noFlags: (fts) => `WITH hits AS (SELECT o.seq, bm25(${fts}, 4.0, 2.0, 1.0) AS score FROM ${fts} JOIN objects o ON o.seq = ${fts}.rowid WHERE ${fts} MATCH @all AND ${live} ORDER BY score LIMIT 200)
       SELECT ${SEL}, -hits.score AS relevance FROM hits JOIN objects o ON o.seq = hits.seq ORDER BY hits.score`,
  fullAny: (fts) => `WITH hits AS (SELECT o.seq, bm25(${fts}, 4.0, 2.0, 1.0) AS score FROM ${fts} JOIN objects o ON o.seq = ${fts}.rowid WHERE ${fts} MATCH @any AND ${live} ORDER BY score LIMIT 200)
       SELECT ${SEL}, -hits.score AS relevance, hits.seq IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH @all) AS all_terms, hits.seq IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH @phrase) AS phrase FROM hits JOIN objects o ON o.seq = hits.seq ORDER BY hits.score`,
};
console.log('rows', db.prepare('select count(*) c from objects').get().c);
for (const [name, mk] of Object.entries(variants)) {
  const sqlText = mk("objects_fts"); const st = db.prepare(sqlText);
  let n = 0; const t0 = performance.now();
  for (let r = 0; r < 5; r++) for (const [a, b] of qs) { const params = { now, all: `"${a}" AND "${b}"`, any: `"${a}" OR "${b}"`, phrase: `"${a} ${b}"` }; if (!sqlText.includes('@now')) delete params.now; if (!sqlText.includes('@any')) delete params.any; if (!sqlText.includes('@phrase')) delete params.phrase; if (!sqlText.includes('@all')) delete params.all; n += st.all(params).length; }
  console.log(name.padEnd(12), ((performance.now() - t0) / 200).toFixed(3), 'ms/query', 'rows/q', (n / 200).toFixed(1));
}
