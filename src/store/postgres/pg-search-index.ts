/**
 * The search half of the PostgreSQL store: weighted tsvectors (`simple` for words as given,
 * `english` for stems) ranked by ts_rank, and the semantic leg of pg-vectors.ts.
 */
import type { LexicalHit, LexicalQuery, SearchIndex, SemanticHit, SemanticQuery } from '../../ports/search-index.js';
import { addFilters, all, limitSql, liveParams, liveSql, SELECT_OBJECT, toObject, type ObjectRow, type Params } from './pg-rows.js';
import type { PgSession } from './pg-session.js';
import type { MemoryVectors, PgvectorLeg } from './pg-vectors.js';

/** ts_rank weights {D, C, B, A} (at most 1): title 4, topics 2, content 1, as FTS5's bm25(4, 2, 1). */
const WEIGHTS = `'{0.025, 0.25, 0.5, 1}'`;

export class PgSearchIndex implements SearchIndex {
  constructor(
    private readonly db: PgSession,
    private readonly vectors: () => PgvectorLeg | MemoryVectors | null,
  ) {}

  async lexical(q: LexicalQuery): Promise<LexicalHit[]> {
    if (q.terms.length === 0) return [];
    const column = q.stemmed ? 'o.stems' : 'o.words';
    const cfg = q.stemmed ? `'english'` : `'simple'`;
    const params: Params = { ...liveParams(q.live), all: q.terms.join(' ') };
    // Each term through the parser on its own, OR-ed: query syntax in a term is only text.
    const any = q.terms.map((t, i) => {
      params[`t${i}`] = t;
      return `plainto_tsquery(${cfg}, agentboard_fold(@t${i}))`;
    });
    const anyQuery = `(${any.join(' || ')})`;
    const allQuery = `plainto_tsquery(${cfg}, agentboard_fold(@all))`;
    const phraseQuery = `phraseto_tsquery(${cfg}, agentboard_fold(@all))`;
    const match = q.allTerms ? allQuery : anyQuery;
    const where = [`${column} @@ ${match}`, liveSql('o')];
    addFilters(q, where, params);
    const rows = await all<ObjectRow & { relevance: number; all_terms: boolean; phrase: boolean }>(
      this.db,
      `WITH hits AS (
         SELECT o.seq, ts_rank(${WEIGHTS}, ${column}, ${match}, 1) AS score FROM objects o
         WHERE ${where.join(' AND ')} ORDER BY score DESC, o.seq ${limitSql(q.limit)})
       SELECT ${SELECT_OBJECT}, hits.score AS relevance,
         ${column} @@ ${allQuery} AS all_terms, ${column} @@ ${phraseQuery} AS phrase
       FROM hits JOIN objects o ON o.seq = hits.seq ORDER BY hits.score DESC, o.seq`,
      params,
    );
    return rows.map((r) => ({ object: toObject(r), relevance: r.relevance, allTerms: r.all_terms, phrase: r.phrase }));
  }

  async semantic(q: SemanticQuery): Promise<SemanticHit[]> {
    return (await this.vectors()?.nearest(q)) ?? [];
  }
}
