/** The search half of the SQLite store: FTS5 (words as given, and Porter stems) and sqlite-vec cosine distances. */
import type { StoreCapabilities } from '../../ports/store.js';
import type { LexicalHit, LexicalQuery, SearchIndex, SemanticHit, SemanticQuery } from '../../ports/search-index.js';
import { addFilters, ftsToken, limitSql, liveParams, liveSql, SELECT_OBJECT, toObject, type ObjectRow, type Sql } from './sqlite-rows.js';

export class SqliteSearchIndex implements SearchIndex {
  constructor(
    private readonly sql: Sql,
    private readonly vectors: StoreCapabilities['vectors'],
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
    const where = [`${fts} MATCH ${q.allTerms ? '@all' : '@any'}`, liveSql('o')];
    addFilters(q, where, params);
    // The AND and phrase matches are evaluated once each, as sets, for the candidates only; not
    // at all where the answer is known: an AND query's hits hold every term, and with one term
    // holding it is the phrase. (Each set costs more than the rest of the query.)
    const single = tokens.length === 1;
    const allTerms = q.allTerms || single ? '1' : `hits.seq IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH @all)`;
    const phrase = single ? '1' : `hits.seq IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH @phrase)`;
    // bm25 is lower-is-better; the column weights rank title over topics over content.
    const rows = this.sql(
      `WITH hits AS (
         SELECT o.seq, bm25(${fts}, 4.0, 2.0, 1.0) AS score
         FROM ${fts} JOIN objects o ON o.seq = ${fts}.rowid
         WHERE ${where.join(' AND ')} ORDER BY score ${limitSql(q.limit)})
       SELECT ${SELECT_OBJECT}, -hits.score AS relevance, ${allTerms} AS all_terms, ${phrase} AS phrase
       FROM hits JOIN objects o ON o.seq = hits.seq ORDER BY hits.score`,
    ).all(params) as (ObjectRow & { relevance: number; all_terms: number; phrase: number })[];
    return rows.map((r) => ({ object: toObject(r), relevance: r.relevance, allTerms: r.all_terms === 1, phrase: r.phrase === 1 }));
  }

  async semantic(q: SemanticQuery): Promise<SemanticHit[]> {
    if (!this.vectors.available) return [];
    const params: Record<string, unknown> = {
      ...liveParams(q.live),
      model: q.model,
      q: Buffer.from(q.vector.buffer, q.vector.byteOffset, q.vector.byteLength),
    };
    const where = ['v.model = @model', liveSql('o')];
    addFilters(q, where, params);
    // Exact distances over the filtered set: correct however selective the filters are.
    const rows = this.sql(
      `WITH d AS (
         SELECT v.seq, vec_distance_cosine(v.embedding, @q) AS dist FROM object_vectors v JOIN objects o ON o.seq = v.seq
         WHERE ${where.join(' AND ')} ORDER BY dist ${limitSql(q.limit)})
       SELECT ${SELECT_OBJECT}, 1 - d.dist AS similarity FROM d JOIN objects o ON o.seq = d.seq ORDER BY d.dist`,
    ).all(params) as (ObjectRow & { similarity: number })[];
    return rows.map((r) => ({ object: toObject(r), similarity: r.similarity }));
  }
}
