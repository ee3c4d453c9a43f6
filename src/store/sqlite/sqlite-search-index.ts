/**
 * The search half of the SQLite store. Lexical: FTS5 (words as given, and Porter stems) finds
 * the matches, sqlite-bm25.ts ranks them. Semantic: sqlite-vectors.ts.
 */
import type { LexicalHit, LexicalQuery, SearchIndex, SemanticHit, SemanticQuery } from '../../ports/search-index.js';
import { CANDIDATE_COLUMNS, candidateColumns, toCandidate, type CandidateRow } from '../object-columns.js';
import { COLUMN_WEIGHTS, Fts5Bm25, INDEX_ROWS_PER_TEXT, type Bm25Score, type Bm25Texts } from './sqlite-bm25.js';
import { addFilters, ftsToken, limitSql, liveParams, liveSql, type Sql } from './sqlite-rows.js';
import type { SqliteVectorLeg } from './sqlite-vectors.js';
import type { ReadRows } from './search-thread.js';

type WindowRow = [...CandidateRow, title: string, topicsText: string, content: string, seq: number];

export class SqliteSearchIndex implements SearchIndex {
  readonly #bm25: { words: Fts5Bm25; stems: Fts5Bm25 };

  constructor(
    private readonly sql: Sql,
    private readonly vectors: SqliteVectorLeg | null,
    /** Rank every window from its texts, never with FTS5's bm25() (both rank alike; tests run both). */
    rankFromTexts = false,
    /** Runs a lexical query's statement: on the store's connection, or on a thread of its own (search-thread.ts). */
    private readonly rows: ReadRows = async (text, params) => sql(text).raw(true).all(params) as unknown[][],
  ) {
    const ratio = rankFromTexts ? -1 : INDEX_ROWS_PER_TEXT;
    this.#bm25 = { words: new Fts5Bm25(sql, 'objects_fts', false, ratio), stems: new Fts5Bm25(sql, 'objects_fts_stem', true, ratio) };
  }

  async lexical(q: LexicalQuery): Promise<LexicalHit[]> {
    if (q.terms.length === 0) return [];
    const fts = q.stemmed ? 'objects_fts_stem' : 'objects_fts';
    const tokens = q.terms.map(ftsToken);
    const params: Record<string, unknown> = { ...liveParams(q.live), match: tokens.join(q.allTerms ? ' AND ' : ' OR ') };
    const filters: string[] = [];
    addFilters(q, filters, params);
    const kept = [liveSql('o'), ...filters].join(' AND ');
    const newest = (match: string, window: number | undefined, also = '') =>
      `${fts} JOIN objects o ON o.seq = ${fts}.rowid WHERE ${fts} MATCH ${match} AND ${kept}${also} ORDER BY ${fts}.rowid DESC ${window === undefined ? '' : limitSql(window)}`;
    // An OR query's window: each term's newest matches, so that a rare word's matches are all in.
    const eachNewest = (columns: string) =>
      q.terms.map((t, i) => ((params[`t${i}`] = ftsToken(t)), `SELECT * FROM (SELECT ${columns} FROM ${newest(`@t${i}`, q.window)})`)).join(' UNION ');
    const bm25 = q.stemmed ? this.#bm25.stems : this.#bm25.words;
    // Without a window every match is ranked, by the index; the terms need no weighing here.
    const weights = q.window === undefined ? null : bm25.weigh(q.terms);
    if (weights && !bm25.indexRanks(weights, q.window!)) {
      // The window's rows with their texts, straight off the index newest first (its rowid is the
      // object's seq, the last column), each joined once for the live check and the filters.
      const columns = `${CANDIDATE_COLUMNS}, o.title, o.topics_text, o.content, o.seq`;
      const windowed = q.allTerms ? `SELECT ${columns} FROM ${newest('@match', q.window)}` : `${eachNewest(columns)} ORDER BY 8 DESC`;
      return this.#rankedFromTexts(q, (await this.rows(windowed, params)) as WindowRow[], bm25.scorer(q.terms, weights));
    }
    // An OR query's window holds every match when no term has more matches than it; otherwise
    // the OR query scans every match (cheap where the index ranks) and keeps the window's ones.
    const window = q.allTerms
      ? newest('@match', q.window)
      : newest('@match', undefined, !weights || bm25.everyMatchFits(weights, q.window!) ? '' : ` AND +${fts}.rowid IN (${eachNewest('o.seq')})`);
    // Where the terms are rare enough, FTS5 scores and marks the window itself. The AND and phrase
    // matches are evaluated once each, as sets, for the page's hits only; not at all where the
    // answer is known: an AND query's hits hold every term, and with one term holding it is the phrase.
    const single = tokens.length === 1;
    const set = (name: string, match: string) => {
      params[name] = match;
      return `hits.seq IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH @${name})`;
    };
    const allTerms = q.allTerms || single ? '1' : q.unmarked ? '0' : set('all', tokens.join(' AND '));
    const phrase = single ? '1' : q.unmarked ? '0' : set('phrase', ftsToken(q.terms.join(' ')));
    const rows = (await this.rows(
      `WITH ranked AS MATERIALIZED (SELECT o.seq, ${CANDIDATE_COLUMNS}, -bm25(${fts}, ${COLUMN_WEIGHTS.join(', ')}) AS score FROM ${window}),
       hits AS (SELECT * FROM ranked ORDER BY score DESC, seq DESC ${limitSql(q.limit)}),
       marked AS (SELECT hits.*, ${allTerms} AS all_terms, ${phrase} AS phrase FROM hits)
       SELECT m.id, m.created_at, m.verification_count, m.contradiction_count, m.score, m.all_terms, m.phrase, t.title, t.content
       FROM marked m LEFT JOIN objects t ON m.phrase AND t.seq = m.seq ORDER BY m.score DESC, m.seq DESC`,
      params,
    )) as [...CandidateRow, score: number, allTerms: number, phrase: number, title: string | null, content: string | null][];
    return rows.map((r) =>
      toCandidate(candidateColumns(r), {
        relevance: r[4],
        allTerms: r[5] === 1,
        phrase: r[6] === 1,
        text: r[6] === 1 ? { title: r[7]!, content: r[8]! } : undefined,
      }),
    );
  }

  /** The window's rows scored and marked from their texts (sqlite-bm25.ts). */
  #rankedFromTexts(q: LexicalQuery, rows: WindowRow[], score: (texts: Bm25Texts) => Bm25Score): LexicalHit[] {
    const hits = rows.map((r) => {
      const s = score({ title: r[4], topicsText: r[5], content: r[6] });
      return toCandidate(candidateColumns(r), {
        relevance: s.score,
        allTerms: !q.unmarked && (q.allTerms === true || s.allTerms),
        phrase: !q.unmarked && s.phrase,
        text: !q.unmarked && s.phrase ? { title: r[4], content: r[6] } : undefined,
      });
    });
    // Best first, and newest first among equals, as the rows came (the sort is stable).
    return hits.sort((a, b) => b.relevance - a.relevance).slice(0, q.limit);
  }

  async allTermsCount(q: Pick<LexicalQuery, 'terms' | 'stemmed' | 'window'>, upTo: number): Promise<number> {
    if (q.terms.length === 0) return 0;
    const fts = q.stemmed ? 'objects_fts_stem' : 'objects_fts';
    // The index's own matches, unscored and unread, and only until there are enough: FTS5 walks
    // the terms' lists lazily, far cheaper than a full count.
    return this.sql(`SELECT count(*) FROM (SELECT 1 FROM ${fts} WHERE ${fts} MATCH ? ${limitSql(upTo)})`)
      .pluck()
      .get(q.terms.map(ftsToken).join(' AND ')) as number;
  }

  async semantic(q: SemanticQuery): Promise<SemanticHit[]> {
    return (await this.vectors?.nearest(q)) ?? [];
  }
}
