/** The search half of the SQLite store. Lexical: FTS5 (words as given, and Porter stems). Semantic: sqlite-vectors.ts. */
import type { LexicalHit, LexicalQuery, SearchIndex, SemanticHit, SemanticQuery } from '../../ports/search-index.js';
import { CANDIDATE_COLUMNS, candidateColumns, toCandidate, type CandidateRow } from '../object-columns.js';
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
    // One join to `objects` per hit gives both the live check and the candidate's columns; the
    // texts are read again only for phrase hits. Rows come as arrays (cheaper than objects).
    const run = (ranked: string) =>
      this.sql(
        `WITH ranked AS MATERIALIZED (${ranked}),
         hits AS (SELECT r.seq, r.score, ${CANDIDATE_COLUMNS} FROM ranked r JOIN objects o ON o.seq = r.seq WHERE ${kept} ORDER BY r.score ${limitSql(q.limit)}),
         marked AS (SELECT hits.*, ${allTerms} AS all_terms, ${phrase} AS phrase FROM hits)
         SELECT m.id, m.created_at, m.verification_count, m.contradiction_count, -m.score, m.all_terms, m.phrase, t.title, t.content,
           (SELECT count(*) FROM ranked)
         FROM marked m LEFT JOIN objects t ON m.phrase AND t.seq = m.seq ORDER BY m.score`,
      )
        .raw(true)
        .all(params) as [...CandidateRow, relevance: number, allTerms: number, phrase: number, title: string | null, content: string | null, ranked: number][];
    // Without filters nearly every match is live: rank the index alone, a little past the limit,
    // and look up only those rows. On a large board a row lookup per match (cold pages) costs
    // more than scoring it. Where too few of them were live, or with filters, every match is
    // looked up as it is ranked.
    const headroom = filters.length === 0 ? Math.ceil(q.limit * 1.25) + 16 : 0;
    let rows = headroom > 0 ? run(`SELECT rowid AS seq, ${bm25} AS score FROM ${fts} WHERE ${match} ORDER BY score ${limitSql(headroom)}`) : null;
    if (!rows || (rows.length < q.limit && (rows.length === 0 || rows[0]![9] === headroom))) {
      rows = run(`SELECT o.seq, ${bm25} AS score FROM ${fts} JOIN objects o ON o.seq = ${fts}.rowid WHERE ${match} AND ${kept} ORDER BY score ${limitSql(q.limit)}`);
    }
    return rows.map((r) =>
      toCandidate(candidateColumns(r), {
        relevance: r[4],
        allTerms: r[5] === 1,
        phrase: r[6] === 1,
        text: r[6] === 1 ? { title: r[7]!, content: r[8]! } : undefined,
      }),
    );
  }

  async allTermsCount(q: Pick<LexicalQuery, 'terms' | 'stemmed'>, upTo: number): Promise<number> {
    if (q.terms.length === 0) return 0;
    const fts = q.stemmed ? 'objects_fts_stem' : 'objects_fts';
    // The index's own matches, unscored and unread, and only until there are enough: FTS5 walks
    // the terms' lists lazily (at 100,000 objects, 0.07 ms instead of 1.9 for a full count).
    return this.sql(`SELECT count(*) FROM (SELECT 1 FROM ${fts} WHERE ${fts} MATCH ? ${limitSql(upTo)})`)
      .pluck()
      .get(q.terms.map(ftsToken).join(' AND ')) as number;
  }

  async semantic(q: SemanticQuery): Promise<SemanticHit[]> {
    return (await this.vectors?.nearest(q)) ?? [];
  }
}
