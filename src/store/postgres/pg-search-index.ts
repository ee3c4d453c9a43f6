/**
 * The search half of the PostgreSQL store. Lexical: weighted tsvectors (`simple` for words as
 * given, `english` for stems) matched through their GIN indexes and scored with BM25 as FTS5
 * scores them (k1 1.2, b 0.75; title 4, topics 2, content 1), so both stores rank alike.
 * ts_rank has no inverse document frequency, and common words would outweigh rare ones.
 * Semantic: pg-vectors.ts.
 */
import type { LexicalHit, LexicalQuery, SearchIndex, SemanticHit, SemanticQuery } from '../../ports/search-index.js';
import { CANDIDATE_COLUMNS, toCandidate, type CandidateColumns } from '../object-columns.js';
import { addFilters, all, limitSql, liveParams, liveSql, one, type Params } from './pg-rows.js';
import type { PgSession } from './pg-session.js';
import type { MemoryVectors, PgvectorLeg } from './pg-vectors.js';

/** Corpus size and mean document length (distinct lexemes) feed BM25; re-read at most this often. */
const STATS_TTL_MS = 30_000;

interface CorpusStats {
  total: number;
  words: number;
  stems: number;
  at: number;
}

export class PgSearchIndex implements SearchIndex {
  #stats: CorpusStats | null = null;
  #reading: Promise<CorpusStats> | null = null;

  constructor(
    private readonly db: PgSession,
    private readonly vectors: () => PgvectorLeg | MemoryVectors | null,
  ) {}

  async lexical(q: LexicalQuery): Promise<LexicalHit[]> {
    if (q.terms.length === 0) return [];
    const column = q.stemmed ? 'o.stems' : 'o.words';
    const cfg = q.stemmed ? `'english'` : `'simple'`;
    const stats = await this.#corpus();
    const params: Params = { ...liveParams(q.live), all: q.terms.join(' '), total: stats.total, avgdl: Math.max(1, q.stemmed ? stats.stems : stats.words) };
    // Each term through the parser on its own, OR-ed: query syntax in a term is only text.
    const any = q.terms.map((t, i) => {
      params[`t${i}`] = t;
      return `plainto_tsquery(${cfg}, agentboard_fold(@t${i}))`;
    });
    const anyQuery = `(${any.join(' || ')})`;
    const allQuery = `plainto_tsquery(${cfg}, agentboard_fold(@all))`;
    const phraseQuery = `phraseto_tsquery(${cfg}, agentboard_fold(@all))`;
    const where = [`${column} @@ ${q.allTerms ? allQuery : anyQuery}`, liveSql('o')];
    addFilters(q, where, params);
    const allTerms = q.allTerms ? 'true' : q.unmarked ? 'false' : `${column} @@ ${allQuery}`;
    const phrase = q.unmarked ? 'false' : `${column} @@ ${phraseQuery}`;
    const rows = await all<CandidateColumns & { relevance: number; all_terms: boolean; phrase: boolean; title: string | null; content: string | null }>(
      this.db,
      `WITH lex AS (SELECT DISTINCT u.lexeme FROM unnest(to_tsvector(${cfg}, agentboard_fold(@all))) u),
       -- The corpus size may be a little stale (cached): never below the term's own count.
       idf AS (
         SELECT l.lexeme, greatest(1e-6, ln((greatest(@total::float8, d.n) - d.n + 0.5) / (d.n + 0.5))) AS w FROM lex l
         CROSS JOIN LATERAL (SELECT count(*) AS n FROM objects x WHERE x.${column.slice(2)} @@ plainto_tsquery('simple', l.lexeme)) d),
       matches AS (SELECT o.seq, ${column} AS vec FROM objects o WHERE ${where.join(' AND ')}),
       hits AS (
         SELECT m.seq, sum(i.w * t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * length(m.vec) / @avgdl::float8))) AS score
         FROM matches m
         CROSS JOIN LATERAL (
           SELECT u.lexeme, sum(CASE w WHEN 'A' THEN 4 WHEN 'B' THEN 2 ELSE 1 END) AS tf
           FROM unnest(m.vec) u, unnest(u.weights) w WHERE u.lexeme IN (SELECT lexeme FROM lex) GROUP BY u.lexeme) t
         JOIN idf i ON i.lexeme = t.lexeme
         GROUP BY m.seq ORDER BY score DESC, m.seq ${limitSql(q.limit)})
       SELECT ${CANDIDATE_COLUMNS}, hits.score AS relevance, m.all_terms, m.phrase,
         CASE WHEN m.phrase THEN o.title END AS title, CASE WHEN m.phrase THEN o.content END AS content
       FROM hits JOIN objects o ON o.seq = hits.seq CROSS JOIN LATERAL (SELECT ${allTerms} AS all_terms, ${phrase} AS phrase) m
       ORDER BY hits.score DESC, o.seq`,
      params,
    );
    return rows.map((r) =>
      toCandidate(r, {
        relevance: r.relevance,
        allTerms: r.all_terms,
        phrase: r.phrase,
        text: r.phrase ? { title: r.title!, content: r.content! } : undefined,
      }),
    );
  }

  async semantic(q: SemanticQuery): Promise<SemanticHit[]> {
    return (await this.vectors()?.nearest(q)) ?? [];
  }

  /** The first query waits for the figures; later ones use the last figures while newer ones are read. */
  async #corpus(): Promise<CorpusStats> {
    const last = this.#stats;
    if (last && Date.now() - last.at <= STATS_TTL_MS) return last;
    this.#reading ??= one<{ total: number; words: number | null; stems: number | null }>(
      this.db,
      'SELECT count(*)::float8 AS total, avg(length(words))::float8 AS words, avg(length(stems))::float8 AS stems FROM objects',
    )
      .then((r) => (this.#stats = { total: r!.total, words: r!.words ?? 1, stems: r!.stems ?? 1, at: Date.now() }))
      .finally(() => (this.#reading = null));
    if (!last) return this.#reading;
    this.#reading.catch(() => undefined);
    return last;
  }
}
