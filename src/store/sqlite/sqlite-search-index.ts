/** The search half of the SQLite store. Lexical: FTS5 (words as given, and Porter stems). Semantic: sqlite-vectors.ts. */
import type { LexicalHit, LexicalQuery, SearchIndex, SemanticHit, SemanticQuery } from '../../ports/search-index.js';
import { CANDIDATE_COLUMNS, toCandidate, type CandidateColumns } from '../object-columns.js';
import { addFilters, ftsToken, limitSql, liveParams, liveSql, type Sql } from './sqlite-rows.js';
import type { SqliteVectorLeg } from './sqlite-vectors.js';

export class SqliteSearchIndex implements SearchIndex {
  constructor(
    private readonly sql: Sql,
    private readonly vectors: SqliteVectorLeg | null,
  ) {}

  async lexical(q: LexicalQuery): Promise<LexicalHit[]> {
    if (q.terms.length === 0) return [];
    const fts = q.stemmed ? 'objects_fts_stem' : 'objects_fts';
    const tokens = q.terms.map(ftsToken);
    const params: Record<string, unknown> = {
      ...liveParams(q.live),
      any: tokens.join(' OR '),
      all: tokens.join(' AND '),
      phrase: ftsToken(q.terms.join(' ')),
    };
    const match = `${fts} MATCH ${q.allTerms ? '@all' : '@any'}`;
    const filters: string[] = [];
    addFilters(q, filters, params);
    const kept = [liveSql('o'), ...filters].join(' AND ');
    // The AND and phrase matches are evaluated once each, as sets, for the candidates only; not
    // at all where the answer is known: an AND query's hits hold every term, and with one term
    // holding it is the phrase. (Each set costs more than the rest of the query.)
    const single = tokens.length === 1;
    const set = (name: string) => `hits.seq IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH @${name})`;
    const allTerms = q.allTerms || single ? '1' : q.unmarked ? '0' : set('all');
    const phrase = single ? '1' : q.unmarked ? '0' : set('phrase');
    // bm25 is lower-is-better; the column weights rank title over topics over content.
    const bm25 = `bm25(${fts}, 4.0, 2.0, 1.0)`;
    const run = (ranked: string) =>
      this.sql(
        `WITH ranked AS MATERIALIZED (${ranked}),
         hits AS (SELECT r.seq, r.score FROM ranked r JOIN objects o ON o.seq = r.seq WHERE ${kept} ORDER BY r.score ${limitSql(q.limit)}),
         marked AS (SELECT hits.seq, hits.score, ${allTerms} AS all_terms, ${phrase} AS phrase FROM hits)
         SELECT ${CANDIDATE_COLUMNS}, -m.score AS relevance, m.all_terms, m.phrase,
           CASE WHEN m.phrase THEN o.title END AS title, CASE WHEN m.phrase THEN o.content END AS content,
           (SELECT count(*) FROM ranked) AS ranked
         FROM marked m JOIN objects o ON o.seq = m.seq ORDER BY m.score`,
      ).all(params) as (CandidateColumns & { relevance: number; all_terms: number; phrase: number; title: string | null; content: string | null; ranked: number })[];
    // Without filters nearly every match is live: rank the index alone, a little past the limit,
    // and look up only those rows. On a large board a row lookup per match (cold pages) costs
    // more than scoring it. Where too few of them were live, or with filters, every match is
    // looked up as it is ranked.
    const headroom = filters.length === 0 ? Math.ceil(q.limit * 1.25) + 16 : 0;
    let rows = headroom > 0 ? run(`SELECT rowid AS seq, ${bm25} AS score FROM ${fts} WHERE ${match} ORDER BY score ${limitSql(headroom)}`) : null;
    if (!rows || (rows.length < q.limit && (rows.length === 0 || rows[0]!.ranked === headroom))) {
      rows = run(`SELECT o.seq, ${bm25} AS score FROM ${fts} JOIN objects o ON o.seq = ${fts}.rowid WHERE ${match} AND ${kept} ORDER BY score ${limitSql(q.limit)}`);
    }
    return rows.map((r) =>
      toCandidate(r, {
        relevance: r.relevance,
        allTerms: r.all_terms === 1,
        phrase: r.phrase === 1,
        text: r.phrase === 1 ? { title: r.title!, content: r.content! } : undefined,
      }),
    );
  }

  async semantic(q: SemanticQuery): Promise<SemanticHit[]> {
    return (await this.vectors?.nearest(q)) ?? [];
  }
}
