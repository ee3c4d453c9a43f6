/**
 * The lexical leg's statement on PostgreSQL: which way a query's window is read (off the GIN
 * index, off its newest rows' part, newest rows first, or a common word's kept rows by key), and
 * BM25 scores of the window's rows as FTS5 gives them (k1 1.2, b 0.75; title 4, topics 2,
 * content 1). Why each way and each shape: docs/performance.md, Lexical search.
 */
import type { LexicalQuery } from '../../ports/search-index.js';
import { CANDIDATE_COLUMNS } from '../object-columns.js';
import { addFilters, limitSql, liveParams, liveSql, type Params } from './pg-rows.js';
import { hasFilters } from '../sql-fragments.js';
import { BUCKET_BITS, BUCKET_ROWS, COMMON_SHARE, fewMatches, indexReadCheaper, recentBuckets, type CorpusStats, type ParsedQuery } from './pg-bm25.js';

/** A row in the newest @buckets buckets of seqs, as the GIN indexes' second column files it. */
const RECENT_ROWS = `ARRAY[(o.seq >> ${BUCKET_BITS})::int] && ARRAY(SELECT generate_series(b.top - @buckets::int + 1, b.top) FROM (SELECT (max(seq) >> ${BUCKET_BITS})::int AS top FROM objects) b)`;

/** How a query's window is read, decided from its lexemes' counts before any statement runs. */
export interface LexicalPlan {
  column: 'o.stems' | 'o.words';
  /** At most twice the window can match: read every match off the index, planned once. */
  few: boolean;
  /** An OR query of common words filtered by liveness alone: each word's newest rows read backwards, planned once. */
  common: boolean;
  /** An AND window read off the GIN index (by seq, then the window's rows by key). */
  viaIndex: boolean;
  /** With viaIndex: only the newest this many buckets' part of the index. */
  recent: number | undefined;
}

export function planLexical(q: LexicalQuery, parsed: ParsedQuery, stats: CorpusStats): LexicalPlan {
  const column = q.stemmed ? 'o.stems' : 'o.words';
  // Matches there can be at most: an AND query's rarest lexeme's count, an OR query's commonest.
  const few = fewMatches(q, q.allTerms ? Math.min(...parsed.df) : Math.max(...parsed.df));
  const unfiltered = !hasFilters(q);
  const common =
    !few && !q.allTerms && q.window !== undefined && unfiltered && parsed.each.every((t) => parsed.lexemes.includes(t)) && Math.min(...parsed.df) >= COMMON_SHARE * stats.total;
  // Filters thin the matches by a share not known here: their AND window is read another way.
  const andWindow = !few && q.allTerms === true && q.window !== undefined;
  const buckets = andWindow && unfiltered ? recentBuckets(stats.total, parsed.df, q.window!) : undefined;
  const viaIndex = andWindow && indexReadCheaper(stats.total, parsed.df, q.window!, 'window', buckets === undefined ? stats.total : buckets * BUCKET_ROWS);
  return { column, few, common, viaIndex, recent: viaIndex ? buckets : undefined };
}

/** What the statement reads of the common words' windows: their kept rows, or whether to read and return them. */
export interface KeptWindows {
  rows: number[][] | null;
  collect: boolean;
}

export interface LexicalStatement {
  scored: string;
  params: Params;
  /** With `collect`: the CTE that holds each word's window, and the value that returns them. */
  windows?: { with: string; after: string };
}

/** The statement's parts for one query: `scored` yields the window's rows with score, all_terms and phrase. */
export function lexicalStatement(q: LexicalQuery, parsed: ParsedQuery, stats: CorpusStats, plan: LexicalPlan, kept: KeptWindows): LexicalStatement {
  return new Builder(q, parsed, stats, plan).build(kept);
}

class Builder {
  readonly params: Params;
  readonly kept: string[];
  readonly #score: string;

  constructor(
    private readonly q: LexicalQuery,
    private readonly parsed: ParsedQuery,
    stats: CorpusStats,
    private readonly plan: LexicalPlan,
  ) {
    this.params = { ...liveParams(q.live), avgdl: Math.max(1, q.stemmed ? stats.stems : stats.words), match: q.allTerms ? parsed.all : parsed.any, all: parsed.all, phrase: parsed.phrase };
    this.kept = [liveSql('o')];
    addFilters(q, this.kept, this.params);
    if (plan.recent !== undefined) this.params.buckets = plan.recent;
    this.#score = this.#bm25(stats.total);
  }

  build(kept: KeptWindows): LexicalStatement {
    const { q, plan } = this;
    const windows = plan.common && !kept.rows && kept.collect ? this.#eachWindow((match, i) => this.scoredFrom(this.#newest(match, ', o.live_until'), `, ${i} AS w, o.live_until AS until`)) : null;
    let scored: string;
    if (q.window === undefined) scored = this.scoredFrom(this.#withK([`${plan.column} @@ @match::tsquery`, ...this.kept].join(' AND ')));
    else if (q.allTerms) scored = this.#windowed('@match');
    else if (kept.rows) {
      // Every window's rows as last read, each read once by its key: no other row read, matched or tested for liveness.
      this.params.rows = [...new Set(kept.rows.flat())];
      scored = this.scoredFrom(this.#withK('o.seq = ANY(@rows::bigint[])'));
    } else scored = `SELECT DISTINCT ON (o.seq) * FROM (${windows ? 'SELECT * FROM windows' : this.#eachWindow((m) => this.#windowed(m))}) o`;
    const out: LexicalStatement = { scored, params: this.params };
    if (windows) {
      out.windows = {
        with: `windows AS MATERIALIZED (${windows})`,
        after: '(SELECT json_agg(json_build_array(s.w, s.seqs, s.until)) FROM (SELECT w, array_agg(seq) AS seqs, min(until) AS until FROM windows GROUP BY w) s)',
      };
    }
    return out;
  }

  /**
   * BM25, one term per lexeme: tf is the lexeme's weighted count of positions, which ts_rank_cd
   * of a one-lexeme query sums in C. tf / (tf + k) is written 1 - k / (tf + k) so each runs once;
   * the row's k comes with its row (`o.k`), in float8 throughout.
   */
  #bm25(total: number): string {
    const { column } = this.plan;
    return this.parsed.lexemes
      .map((lexeme, i) => {
        this.params[`l${i}`] = lexeme;
        // The corpus size may be a little stale (cached): never below the lexeme's own count.
        const n = this.parsed.df[i]!;
        this.params[`w${i}`] = Math.max(1e-6, Math.log((Math.max(total, n) - n + 0.5) / (n + 0.5)));
        const term = `@w${i}::float8 * 2.2 * (1 - o.k / (4 * ts_rank_cd('{0.25,0.25,0.5,1}', ${column}, @l${i}::tsquery)::float8 + o.k))`;
        // A row of an OR query may lack the lexeme (its term is then 0): @@ looks it up far cheaper than ts_rank_cd zeroes.
        return this.q.allTerms ? term : `CASE WHEN ${column} @@ @l${i}::tsquery THEN ${term} ELSE 0 END`;
      })
      .join(' + ');
  }

  get #kColumn(): string {
    return `1.2::float8 * (0.25::float8 + 0.75::float8 * length(${this.plan.column}) / @avgdl::float8) AS k`;
  }

  /** Rows of `where`, each with its k. OFFSET 0: not pulled up into the scoring, which would write k out in each term again. */
  #withK(where: string): string {
    return `(SELECT o.seq, ${CANDIDATE_COLUMNS}, ${this.plan.column}, ${this.#kColumn} FROM objects o WHERE ${where} OFFSET 0) o`;
  }

  scoredFrom(from: string, more = ''): string {
    const { q, plan } = this;
    const allTerms = q.allTerms ? 'true' : q.unmarked ? 'false' : `${plan.column} @@ @all::tsquery`;
    const phrase = q.unmarked ? 'false' : `${plan.column} @@ @phrase::tsquery`;
    return `SELECT o.seq, ${CANDIDATE_COLUMNS}, ${this.#score} AS score, ${allTerms} AS all_terms, ${phrase} AS phrase${more} FROM ${from}`;
  }

  /** The matches read off the GIN index as rows of `columns`, planned apart from the filters; `newestOnly`: in the newest @buckets buckets. */
  #offIndex(match: string, columns: string, newestOnly = false): string {
    return `(SELECT ${columns} FROM objects o WHERE ${this.plan.column} @@ ${match}::tsquery${newestOnly ? ` AND ${RECENT_ROWS}` : ''} OFFSET 0) o WHERE ${this.kept.join(' AND ')}`;
  }

  /** Every match: off the index where they are few; called as a function (no index serves it) for common words. */
  #matches(match: string): string {
    const { few, common, column } = this.plan;
    if (few) return this.#offIndex(match, '*');
    return `objects o WHERE ${[common ? `ts_match_vq(${column}, ${match}::tsquery)` : `${column} @@ ${match}::tsquery`, ...this.kept].join(' AND ')}`;
  }

  /** The window, picked before any match is scored: the newest matches, whole rows, each read once. */
  #newest(match: string, more = ''): string {
    return `(SELECT o.seq, ${CANDIDATE_COLUMNS}, ${this.plan.column}, ${this.#kColumn}${more} FROM ${this.#matches(match)} ORDER BY o.seq DESC ${limitSql(this.q.window ?? 0)}) o`;
  }

  /** Of each match, its seq and what the filters read; the newest kept. */
  #newestSeqs(match: string, newestOnly = false): string {
    return `ARRAY(SELECT o.seq FROM ${this.#offIndex(match, 'o.seq, o.id, o.type, o.live_until, o.space', newestOnly)} ORDER BY o.seq DESC ${limitSql(this.q.window ?? 0)})`;
  }

  /**
   * The window's seqs off the index: every match is read (an initplan, run where first needed)
   * only where the newest buckets held fewer than the window. OFFSET 0: pulled up, the newest
   * buckets' read was written out, and run, at each use.
   */
  #windowSeqs(match: string): string {
    if (this.plan.recent === undefined) return this.#newestSeqs(match);
    return `(SELECT CASE WHEN cardinality(r.seqs) >= ${Math.trunc(this.q.window!)} THEN r.seqs ELSE ${this.#newestSeqs(match)} END FROM (SELECT ${this.#newestSeqs(match, true)} AS seqs OFFSET 0) r)::bigint[]`;
  }

  #windowed(match: string): string {
    return this.plan.viaIndex ? this.scoredFrom(this.#withK(`o.seq = ANY(${this.#windowSeqs(match)})`)) : this.scoredFrom(this.#newest(match));
  }

  /**
   * Each term's window scored on its own (a row in two is scored twice), so that only narrow rows
   * are merged: joined back by seq, the planner would hash-join the union with the whole table.
   */
  #eachWindow(of: (match: string, i: number) => string): string {
    return this.parsed.each.map((t, i) => ((this.params[`e${i}`] = t), `(${of(`@e${i}`, i)})`)).join(' UNION ALL ');
  }
}
