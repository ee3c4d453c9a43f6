/**
 * The search half of the PostgreSQL store. Lexical: weighted tsvectors (`simple` for words as
 * given, `english` for stems) matched through their GIN indexes and scored with BM25 as FTS5
 * scores them, so both stores rank alike (ts_rank has no inverse document frequency). The
 * statement is built in pg-lexical-statement.ts over the counts of pg-bm25.ts; semantic:
 * pg-vectors.ts.
 */
import type { LexicalHit, LexicalQuery, SearchIndex, SemanticHit, SemanticQuery } from '../../ports/search-index.js';
import { candidateColumnsAt, toCandidate, type CandidateValues } from '../object-columns.js';
import { fewMatches, indexReadCheaper, LEXEMES_KEPT, PgLexemes } from './pg-bm25.js';
import { lexicalStatement, planLexical } from './pg-lexical-statement.js';
import { allAsColumns, limitSql, one } from './pg-rows.js';
import type { PgSession, PgStatements } from './pg-session.js';
import type { MemoryVectors, PgvectorLeg } from './pg-vectors.js';

/**
 * Rows of common words' windows kept (#keptWindows), a number each: past this many, they are
 * read again. A board has few common words, and each keeps a window for the sizes its searches
 * ask (SEARCH_LEXICAL_WINDOW shared among 1 to 8 terms).
 */
const WINDOW_ROWS_KEPT = 500_000;

/** A common word's window as a search read it: its place in the query, its rows' seqs, and the first instant one of them leaves the live set. */
type WindowRead = [w: number, seqs: number[], until: number];

/** A common word's window of its newest live matches, as last read (#keptWindows). */
interface WindowSeen {
  /** The change mark it was read under. */
  mark: number;
  /** Its rows' seqs, when they were kept (#collects): read at `at`, exact until `until`, when one of its matches leaves the live set. */
  rows: { seqs: number[]; at: number; until: number } | null;
}

type LexicalValues = [...CandidateValues, scores: number[], allTerms: boolean[], phrases: boolean[], texts: ([title: string, content: string] | null)[], seqs: number[], windows: WindowRead[]];

export class PgSearchIndex implements SearchIndex {
  readonly lexemes: PgLexemes;
  /** Common words' windows as last read, by column, window size and lexeme (#keptWindows), and how many rows they keep. */
  readonly #windows = new Map<string, WindowSeen>();
  #windowRows = 0;

  constructor(
    /** For statements that may run long (counts over the table): the pool, and connections of the pool's that plan once (PgRoot.genericPlans). */
    db: { pool: PgSession; planned: PgSession },
    /**
     * The searches' own statements, short and many at once (PgRoot.pipelines): `planned` plans
     * each once per connection, for statements whose plan cannot depend on their values;
     * `custom` plans each for its values.
     */
    private readonly searches: { planned: PgStatements; custom: PgStatements },
    private readonly vectors: () => PgvectorLeg | MemoryVectors | null,
    /** Moves with every write any instance makes (PgStore.changeMark); null while unknown. */
    changeMark: () => Promise<number | null>,
  ) {
    this.lexemes = new PgLexemes(db.pool, db.planned, changeMark);
  }

  async lexical(q: LexicalQuery): Promise<LexicalHit[]> {
    if (q.terms.length === 0) return [];
    const [stats, parsed] = await Promise.all([this.lexemes.corpus(), this.lexemes.parse(q.terms, q.stemmed ? 'english' : 'simple')]);
    if (parsed.lexemes.length === 0) return [];
    const plan = planLexical(q, parsed, stats);
    // Each common word's window as last read, while that still holds (#keptWindows); a space's windows are its own.
    const windowKeys = plan.common ? parsed.each.map((t) => `${q.live.space ?? ''} ${plan.column} ${q.window} ${t}`) : [];
    const rows = plan.common ? this.#keptWindows(windowKeys, parsed.mark, q.live.now) : null;
    const collect = plan.common && !rows && this.#collects(windowKeys, parsed.mark);
    const statement = lexicalStatement(q, parsed, stats, plan, { rows, collect });
    // Scored and marked once (materialized); then only phrase hits read their text, in one lookup.
    const values = await allAsColumns<LexicalValues>(
      plan.few || plan.common ? this.searches.planned : this.searches.custom,
      `WITH scored AS MATERIALIZED (${statement.scored})
       SELECT h.*, CASE WHEN h.phrase THEN (SELECT json_build_array(o.title, o.content) FROM objects o WHERE o.seq = h.seq) END AS text
       FROM (SELECT * FROM scored WHERE score > 0 ORDER BY score DESC, seq ${limitSql(q.limit)}) h`,
      ['id', 'created_at', 'verification_count', 'contradiction_count', 'score', 'all_terms', 'phrase', 'text', 'seq'],
      statement.params,
      statement.windows,
    );
    if (statement.windows) this.#keepWindows(windowKeys, parsed.mark!, q.live.now, values[9]);
    return hitsOf(values);
  }

  /**
   * The rows of the window (newest live matches) of each key's word (column, size, lexeme) as
   * last read, while they are still its window: read under the current change mark (no write
   * since, in any instance the store has heard of), at or before `now`, and before any of them
   * left the live set. A match that was not live cannot become live but by a write, nor a live
   * one leave the set but by a write or its time, so the window holds the same rows. Null
   * unless every term's is known: the search then reads each word's window (and keeps it).
   */
  #keptWindows(keys: readonly string[], mark: number | null, now: number): number[][] | null {
    if (mark === null) return null;
    const rows: number[][] = [];
    for (const k of keys) {
      const w = this.#windows.get(k);
      if (!w?.rows || w.mark !== mark || now < w.rows.at || now >= w.rows.until) return null;
      rows.push(w.rows.seqs);
    }
    return rows;
  }

  /**
   * Whether a search of common words whose windows are not all kept reads them apart (which
   * costs it more than reading the windows alone): only where one of its words was searched
   * before under the same change mark. Where writes come between searches of a word, its window
   * would never be used.
   */
  #collects(keys: readonly string[], mark: number | null): boolean {
    if (mark === null) return false;
    if (keys.some((k) => this.#windows.get(k)?.mark === mark)) return true;
    for (const k of keys) this.#keepWindow(k, { mark, rows: null });
    return false;
  }

  /** Keeps each term's window, from the windows a search read at `at` under `mark` (`read`, by the term's place). */
  #keepWindows(keys: readonly string[], mark: number, at: number, read: readonly WindowRead[]): void {
    keys.forEach((k, i) => {
      // No row read: the word has no live match, and its window is empty until a write.
      const [, seqs, until] = read.find(([place]) => place === i) ?? [i, [], Number.POSITIVE_INFINITY];
      this.#keepWindow(k, { mark, rows: { seqs, at, until } });
    });
  }

  /** Keeps `seen` under `key`, in place of what was: every kept window is dropped first where the windows would pass WINDOW_ROWS_KEPT rows or LEXEMES_KEPT keys. */
  #keepWindow(key: string, seen: WindowSeen): void {
    const replaced = this.#windows.get(key);
    this.#windowRows -= replaced?.rows?.seqs.length ?? 0;
    const rows = seen.rows?.seqs.length ?? 0;
    // A key kept already is replaced in place: the map does not grow.
    if ((!replaced && this.#windows.size >= LEXEMES_KEPT) || this.#windowRows + rows > WINDOW_ROWS_KEPT) {
      this.#windows.clear();
      this.#windowRows = 0;
    }
    this.#windows.set(key, seen);
    this.#windowRows += rows;
  }

  async allTermsCount(q: Pick<LexicalQuery, 'terms' | 'stemmed' | 'window'>, upTo: number): Promise<number> {
    if (q.terms.length === 0) return 0;
    const parsed = await this.lexemes.parse(q.terms, q.stemmed ? 'english' : 'simple');
    if (parsed.lexemes.length === 0) return 0;
    // The rarest lexeme's objects (counted when the query was parsed) bound the count: fewer than
    // asked, and nothing is counted (a hybrid search holding a rare word, an error code say,
    // goes straight to its OR query).
    const rarest = Math.min(...parsed.df);
    if (rarest < upTo) return rarest;
    // The GIN index's matches, unscored, and no further than upTo; planned once where the AND
    // query would be. Where the words often meet, the table read in order instead, until upTo
    // are in (the match called as a function, which no index serves).
    const column = q.stemmed ? 'o.stems' : 'o.words';
    const few = fewMatches(q, rarest);
    const inOrder = !few && !indexReadCheaper((await this.lexemes.corpus()).total, parsed.df, upTo, 'count');
    const counted = await one<{ n: number }>(
      few ? this.searches.planned : this.searches.custom,
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM objects o WHERE ${inOrder ? `ts_match_vq(${column}, @all::tsquery)` : `${column} @@ @all::tsquery`} ${limitSql(upTo)}) c`,
      { all: parsed.all },
    );
    return counted!.n;
  }

  async semantic(q: SemanticQuery): Promise<SemanticHit[]> {
    return (await this.vectors()?.nearest(q)) ?? [];
  }
}

/** The statement's columns as candidates, best first as it picked them: the scores read back as the very doubles. */
function hitsOf(values: LexicalValues): LexicalHit[] {
  const [, , , , scores, holdsAll, phrases, texts, seqs] = values;
  const order = seqs.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || seqs[a]! - seqs[b]!);
  return order.map((i) => {
    const text = texts[i];
    return toCandidate(candidateColumnsAt(values, i), {
      relevance: scores[i]!,
      allTerms: holdsAll[i]!,
      phrase: phrases[i]!,
      text: text ? { title: text[0], content: text[1] } : undefined,
    });
  });
}
