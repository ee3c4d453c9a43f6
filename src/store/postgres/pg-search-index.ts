/**
 * The search half of the PostgreSQL store. Lexical: weighted tsvectors (`simple` for words as
 * given, `english` for stems) matched through their GIN indexes and scored with BM25 as FTS5
 * scores them (k1 1.2, b 0.75; title 4, topics 2, content 1), so both stores rank alike.
 * ts_rank has no inverse document frequency, and common words would outweigh rare ones.
 * Semantic: pg-vectors.ts.
 */
import type { LexicalHit, LexicalQuery, SearchIndex, SemanticHit, SemanticQuery } from '../../ports/search-index.js';
import { CANDIDATE_COLUMNS, candidateColumnsAt, toCandidate, type CandidateValues } from '../object-columns.js';
import { addFilters, allAsColumns, limitSql, liveParams, liveSql, one, type Params } from './pg-rows.js';
import { countStillWeighs } from '../term-counts.js';
import type { PgSession, PgStatements } from './pg-session.js';
import type { MemoryVectors, PgvectorLeg } from './pg-vectors.js';

/** Corpus size and mean document length (distinct lexemes) feed BM25; re-read at most this often. */
const STATS_TTL_MS = 30_000;
/**
 * Their statement reads every row, and on a large board takes long (seconds at 1,000,000 objects,
 * a board that grows by a hundredth in minutes at the least): it runs again no sooner than this
 * many times what its last run took, so that it never holds a connection more than a hundredth
 * of the time, in every instance.
 */
const STATS_COST_RATIO = 100;

/** When corpus statistics read at `at`, by a statement that took `tookMs`, are to be read again. */
export const corpusStatsDue = (at: number, tookMs: number): number => at + Math.max(STATS_TTL_MS, STATS_COST_RATIO * tookMs);

/** Parsed queries kept (least recently used go first). */
const PARSED_CACHED = 1000;
/** Lexemes kept per term, and document frequencies per lexeme: past this many, each map starts again. */
const LEXEMES_KEPT = 20_000;
/**
 * Rows of common words' windows kept (#keptWindows), a number each: past this many, they are
 * read again. A board has few common words (each in a tenth of the objects or more), and each
 * keeps a window for the sizes its searches ask (SEARCH_LEXICAL_WINDOW shared among 1 to 8 terms).
 */
const WINDOW_ROWS_KEPT = 500_000;
/**
 * A lexeme at least this many objects hold keeps its count across writes, until the board's
 * object count (read again after STATS_TTL_MS at the soonest: corpusStatsDue) has moved by a
 * hundredth (term-counts.ts).
 * Counted under every write, each search of a common word on a board taking writes counted it
 * again: 200 ms for a word in one of ten at 518,000 objects. A rarer lexeme is counted again
 * after any write, exactly: its count bounds the all-terms count, and costs little.
 */
const COUNT_KEPT_FROM = 1000;
/**
 * A lexeme that ANALYZE's sample puts in at least this many objects, and in a hundredth of them
 * or more (ESTIMATED_FROM_SHARE), is weighed by that share of the object count, never counted.
 * Counting costs in proportion to the objects holding the word (at 100,000 objects, about 300 ms
 * a word in a quarter of them; at 1,000,000, seconds), and the first search of each common word
 * waited for it. A sampled share of a hundredth or more is within about 6% (ANALYZE samples
 * 30,000 rows), which moves the word's weight by about 1%, as a count kept until the board grows
 * by a hundredth does (COUNT_KEPT_FROM). Elasticsearch, by default, weighs words by each shard's
 * own counts, with errors of the same kind.
 */
const ESTIMATED_FROM = 10_000;
const ESTIMATED_FROM_SHARE = 0.01;

/** The objects a lexeme held by `share` of the sampled rows is taken to be in, or undefined where it must be counted. */
export function estimatedCount(share: number, total: number): number | undefined {
  const estimate = Math.round(share * total);
  return estimate >= ESTIMATED_FROM && share >= ESTIMATED_FROM_SHARE ? estimate : undefined;
}
/**
 * Whether a query that can match at most `bound` objects has few matches for its window (at
 * most twice its size): so few that reading them all off the GIN index is never far from the
 * best plan, and its statements are planned once per connection (the planned session).
 */
const fewMatches = (q: Pick<LexicalQuery, 'window'>, bound: number): boolean => q.window !== undefined && bound <= 2 * q.window;
/** The objects of `total` holding every word, as if the words met by chance: at least one. */
const estimatedMatches = (total: number, counts: readonly number[]): number => Math.max(1, counts.reduce((m, n) => (m * Math.min(n, total)) / total, total));

/**
 * Whether the matches of every word are found sooner through the GIN index than by reading the
 * table until enough are in: `wanted` of them, the newest (`window`: every match read, then the
 * newest kept) or any (`count`: read until as many are counted). The matches are estimated from
 * each lexeme's count as if the words met by chance. Per row, against one read newest first
 * through the seq index: a row read off the GIN index costs about 2.6 (random heap pages), one
 * read in the table's order 0.64, and a posting of the index about a fortieth (measured on
 * `npm run bench:search`'s corpus). The planner prices the match of a row read in order as nearly
 * free, so it read in order where words rarely meet (at 100,000 objects, three common words'
 * window took 34 ms read in order against 15 off the index; at 10,000, two words' 8.8 against 2.0),
 * and read every posting where they often meet (two common words' first 100 counted in 5-7 ms,
 * against 2.4-2.8 read in order). A read of the index confined to the newest `rows`
 * (recentBuckets) reads their share of the postings and of the matches.
 */
export function indexReadCheaper(total: number, counts: readonly number[], wanted: number, read: 'window' | 'count', rows = total): boolean {
  if (total <= 0) return true;
  const matches = estimatedMatches(total, counts);
  const share = Math.min(1, rows / total);
  const inOrder = (read === 'window' ? 1 : 0.64) * Math.min(total, (wanted * total) / matches);
  const viaIndex = share * (counts.reduce((sum, n) => sum + n, 0) / 40 + 2.6 * (read === 'window' ? matches : Math.min(matches, wanted)));
  return viaIndex < inOrder;
}

/** The GIN indexes' second column files each row under its bucket of 2^12 seqs (migration 11: `seq >> 12`). */
const BUCKET_BITS = 12;
const BUCKET_ROWS = 2 ** BUCKET_BITS;
/** An AND window read off the newest buckets alone reads enough of them to hold its matches this many times over, by the estimate. */
const RECENT_MARGIN = 1.2;
/**
 * How many of the newest buckets of seqs (BUCKET_ROWS) an AND query's `wanted` newest matches
 * are likely in, RECENT_MARGIN times over, by indexReadCheaper's estimate; undefined where that
 * is half the board or more, and the whole index costs little more to read. Asked for those
 * buckets too, GIN skips each word's postings to the rows the buckets hold (a word's postings
 * are in the table's order), and reads about their share: at 1,000,000 objects, four words each
 * in a quarter of them (5,552 matches), 1.5 ms off 1 bucket, 5.4 off 13, 10 off 29 and 39-52 off
 * all 245. Words tend to meet more often than by chance (there, 1.4 times), which widens the margin.
 */
export function recentBuckets(total: number, counts: readonly number[], wanted: number): number | undefined {
  const rows = (RECENT_MARGIN * wanted * total) / estimatedMatches(total, counts);
  // One more for the newest bucket, which is filling.
  return rows < total / 2 ? Math.ceil(rows / BUCKET_ROWS) + 1 : undefined;
}

/**
 * A word that at least this share of the objects holds is common: the newest rows hold its
 * window's matches within about 1 / COMMON_SHARE times the window's size.
 */
const COMMON_SHARE = 0.1;

/** A row in the newest @buckets buckets of seqs (BUCKET_ROWS), as the GIN indexes' second column files it. */
const RECENT_ROWS = `ARRAY[(o.seq >> ${BUCKET_BITS})::int] && ARRAY(SELECT generate_series(b.top - @buckets::int + 1, b.top) FROM (SELECT (max(seq) >> ${BUCKET_BITS})::int AS top FROM objects) b)`;

/** `u.lexeme` as a one-lexeme tsquery, quoted as tsquery input is (no parser: compounds stay whole). */
const LEXEME_QUERY = String.raw`('''' || replace(replace(u.lexeme, '\', '\\'), '''', '''''') || '''')::tsquery`;

interface ParsedQuery {
  /** tsquery texts: any term, each term, every term, the terms as a phrase. */
  any: string;
  each: string[];
  all: string;
  phrase: string;
  /** Each lexeme of the query as a tsquery, and how many objects (live or not) hold it. */
  lexemes: string[];
  df: number[];
  /** The change mark it was read at: kept until the mark moves. */
  mark: number | null;
}

/** A common word's window as a search read it (`windows`): its place in the query, its rows' seqs, and the first instant one of them leaves the live set. */
type WindowRead = [w: number, seqs: number[], until: number];

/** A common word's window of its newest live matches, as last read (#keptWindows). */
interface WindowSeen {
  /** The change mark it was read under. */
  mark: number;
  /** Its rows' seqs, when they were kept (#collects): read at `at`, exact until `until`, when one of its matches leaves the live set. */
  rows: { seqs: number[]; at: number; until: number } | null;
}

interface CorpusStats {
  total: number;
  words: number;
  stems: number;
  /** By column, the objects each lexeme (as a tsquery) is taken to be in where ANALYZE's sample settles it (estimatedCount); empty before any ANALYZE. */
  estimated: Record<'words' | 'stems', Map<string, number>>;
  /** When to read them again (corpusStatsDue). */
  due: number;
}

/** ANALYZE's most common lexemes of `words` and `stems` with the share of sampled rows holding each (pg_stats). */
const SAMPLED_SHARES = `(SELECT json_object_agg(attname, json_build_array(most_common_elems::text::text[], most_common_elem_freqs))
  FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'objects' AND attname IN ('words', 'stems'))`;

/** The estimated counts (estimatedCount) of pg_stats' lexemes, by one-lexeme tsquery text, quoted as LEXEME_QUERY quotes it. */
function estimatesOf(sampled: Record<string, [string[] | null, number[] | null]> | null, column: 'words' | 'stems', total: number): Map<string, number> {
  const [lexemes, shares] = sampled?.[column] ?? [null, null];
  const byQuery = new Map<string, number>();
  // The shares' list ends with two or three figures of its own (least, most, nulls).
  if (!lexemes || !shares || shares.length < lexemes.length) return byQuery;
  lexemes.forEach((l, i) => {
    const n = estimatedCount(shares[i]!, total);
    if (n !== undefined) byQuery.set(`'${l.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`, n);
  });
  return byQuery;
}

export class PgSearchIndex implements SearchIndex {
  #stats: CorpusStats | null = null;
  #reading: Promise<CorpusStats> | null = null;
  readonly #parsed = new Map<string, Promise<ParsedQuery>>();
  /** Each query term's lexemes, by configuration and term, as the parse found them: parsing reads no data. */
  readonly #termLexemes = new Map<string, string[]>();
  /** Document frequencies by configuration and lexeme, with the change mark and the object count they were counted at. */
  readonly #df = new Map<string, { n: number; mark: number | null; total: number }>();
  /** Common words' windows as last read, by column, window size and lexeme (#keptWindows), and how many rows they keep. */
  readonly #windows = new Map<string, WindowSeen>();
  #windowRows = 0;

  constructor(
    /** For statements that may run long (counts over the table): the pool. */
    private readonly db: PgSession,
    /**
     * The searches' own statements, short and many at once (PgRoot.pipelines): `planned` plans
     * each once per connection, for statements whose plan cannot depend on their values;
     * `custom` plans each for its values.
     */
    private readonly searches: { planned: PgStatements; custom: PgStatements },
    private readonly vectors: () => PgvectorLeg | MemoryVectors | null,
    /** Moves with every write any instance makes (PgStore.changeMark); null while unknown. */
    private readonly changeMark: () => Promise<number | null>,
  ) {}

  async lexical(q: LexicalQuery): Promise<LexicalHit[]> {
    if (q.terms.length === 0) return [];
    const column = q.stemmed ? 'o.stems' : 'o.words';
    const [stats, parsed] = await Promise.all([this.#corpus(), this.#parse(q.terms, q.stemmed ? 'english' : 'simple')]);
    if (parsed.lexemes.length === 0) return [];
    const params: Params = {
      ...liveParams(q.live),
      avgdl: Math.max(1, q.stemmed ? stats.stems : stats.words),
      match: q.allTerms ? parsed.all : parsed.any,
      all: parsed.all,
      phrase: parsed.phrase,
    };
    const kept = [liveSql('o')];
    addFilters(q, kept, params);
    const where = [`${column} @@ @match::tsquery`, ...kept];
    // BM25 per lexeme, each written out: tf is the lexeme's weighted count of positions (title
    // 4, topics 2, content 1), which ts_rank_cd of a one-lexeme query sums (weights scaled to
    // ≤ 1) in C. Unnesting each vector in SQL, or a subquery per row, cost twice the whole
    // query. tf / (tf + k) is written 1 - k / (tf + k), so each ts_rank_cd runs once. The row's
    // k comes with its row (`o.k`), computed once where the row is read: written out in each
    // term, it was computed twice per lexeme (the statement 13% slower with two lexemes).
    // In float8 throughout: a literal such as 0.75 is numeric, and the row's length with it was
    // numeric arithmetic, then a cast, for every row (a statement scoring 278 rows 12% faster).
    const kColumn = `1.2::float8 * (0.25::float8 + 0.75::float8 * length(${column}) / @avgdl::float8) AS k`;
    // Rows of `where`, each with its k. OFFSET 0: not pulled up into the scoring, which would
    // write k out in each term again.
    const withK = (where: string) => `(SELECT o.seq, ${CANDIDATE_COLUMNS}, ${column}, ${kColumn} FROM objects o WHERE ${where} OFFSET 0) o`;
    const score = parsed.lexemes.map((lexeme, i) => {
      params[`l${i}`] = lexeme;
      // The corpus size may be a little stale (cached): never below the lexeme's own count.
      const n = parsed.df[i]!;
      params[`w${i}`] = Math.max(1e-6, Math.log((Math.max(stats.total, n) - n + 0.5) / (n + 0.5)));
      const term = `@w${i}::float8 * 2.2 * (1 - o.k / (4 * ts_rank_cd('{0.25,0.25,0.5,1}', ${column}, @l${i}::tsquery)::float8 + o.k))`;
      // A row of an OR query may lack the lexeme, whose term is then exactly 0: ts_rank_cd zeroes
      // 32 KB on every call, where @@ only looks the lexeme up (the OR statement 7-12% faster).
      // Every row of an AND query holds every lexeme.
      return q.allTerms ? term : `CASE WHEN ${column} @@ @l${i}::tsquery THEN ${term} ELSE 0 END`;
    });
    const allTerms = q.allTerms ? 'true' : q.unmarked ? 'false' : `${column} @@ @all::tsquery`;
    const phrase = q.unmarked ? 'false' : `${column} @@ @phrase::tsquery`;
    const scoredFrom = (from: string, more = '') => `SELECT o.seq, ${CANDIDATE_COLUMNS}, ${score.join(' + ')} AS score, ${allTerms} AS all_terms, ${phrase} AS phrase${more} FROM ${from}`;
    // Matches there can be at most: an AND query's rarest lexeme's count, a term's its own.
    const bound = q.allTerms ? Math.min(...parsed.df) : Math.max(...parsed.df);
    // Few matches, whatever the words: the statement is planned once per connection (the planned
    // session). Its one sane plan reads the GIN index's matches, so there the match is planned
    // apart (OFFSET 0) from the filters: beside them, the plan made without values ANDed every
    // live row of the expiry index into the bitmap.
    const few = fewMatches(q, bound);
    // Common words, whatever they are: an OR query of one-lexeme terms, each held by a tenth of
    // the objects or more, filtered by liveness alone. Reading the newest rows backwards finds
    // each term's window within about ten times its size, and is its one sane plan, so the
    // statement is planned once too (the planned session): a fifth of its time was planning
    // (measured). The match is called as a function, which no index serves: planned without
    // values, the plan could otherwise read every match off the GIN index.
    const common =
      !few &&
      !q.allTerms &&
      q.window !== undefined &&
      !q.types?.length &&
      !q.topics?.length &&
      parsed.each.every((t) => parsed.lexemes.includes(t)) &&
      Math.min(...parsed.df) >= COMMON_SHARE * stats.total;
    // Each common word's window as last read, while that still holds (#keptWindows).
    const windowKeys = common ? parsed.each.map((t) => `${column} ${q.window} ${t}`) : [];
    const keptRows = common ? this.#keptWindows(windowKeys, parsed.mark, q.live.now) : null;
    // An AND query whose words seldom meet: its matches read off the GIN index, planned apart
    // from the filters as above, then the newest kept (indexReadCheaper).
    // Where they likely are among the newest rows (recentBuckets), those rows' matches alone,
    // and every match only where those hold fewer than the window. Filters by type or topic
    // thin the matches by a share not known here: their window is read one of the other ways.
    const andWindow = !few && q.allTerms === true && q.window !== undefined;
    const buckets = andWindow && !q.types?.length && !q.topics?.length ? recentBuckets(stats.total, parsed.df, q.window!) : undefined;
    const viaIndex = andWindow && indexReadCheaper(stats.total, parsed.df, q.window!, 'window', buckets === undefined ? stats.total : buckets * BUCKET_ROWS);
    const recent = viaIndex ? buckets : undefined;
    if (recent !== undefined) params.buckets = recent;
    // The matches read off the GIN index, as rows of `columns`, planned apart from the filters;
    // `newestOnly`: only those in the newest @buckets buckets, counted back from the greatest seq's.
    const offIndex = (match: string, columns: string, newestOnly = false) =>
      `(SELECT ${columns} FROM objects o WHERE ${column} @@ ${match}::tsquery${newestOnly ? ` AND ${RECENT_ROWS}` : ''} OFFSET 0) o WHERE ${kept.join(' AND ')}`;
    const matches = (match: string) =>
      few
        ? offIndex(match, '*')
        : `objects o WHERE ${[common ? `ts_match_vq(${column}, ${match}::tsquery)` : `${column} @@ ${match}::tsquery`, ...kept].join(' AND ')}`;
    // The window, picked before any match is scored: the newest matches; for an OR query, each
    // term's newest matches, so that a rare word's matches are all in. It holds whole rows, each
    // read once: picked by seq alone, each row was then read again by its key, where the planner
    // mostly reads the newest rows backwards and has them whole already (the OR statement 20%
    // faster on 4,000 objects; on 40,000, with the window sorted off the GIN index at 3 to 5
    // times its size in matches, faster or alike). Through the index (viaIndex), up to about ten
    // times the window's matches are sorted: by seq alone, and only the window's rows then read
    // whole, by key (at 10,000 objects, 684 matches: 8.0 ms against 14.4 sorting them whole).
    const newest = (match: string, more = '') => `(SELECT o.seq, ${CANDIDATE_COLUMNS}, ${column}, ${kColumn}${more} FROM ${matches(match)} ORDER BY o.seq DESC ${limitSql(q.window ?? 0)}) o`;
    // Of each match, its seq and what the filters read; the newest kept.
    const newestSeqs = (match: string, newestOnly = false) => `ARRAY(SELECT o.seq FROM ${offIndex(match, 'o.seq, o.id, o.type, o.live_until', newestOnly)} ORDER BY o.seq DESC ${limitSql(q.window ?? 0)})`;
    // Every match is read (an initplan, run where it is first needed) only where the newest
    // buckets held fewer than the window: any match they do not hold is older than theirs.
    // OFFSET 0: pulled up, the newest buckets' read was written out, and run, at each use.
    const windowSeqs = (match: string) =>
      recent === undefined
        ? newestSeqs(match)
        : `(SELECT CASE WHEN cardinality(r.seqs) >= ${Math.trunc(q.window!)} THEN r.seqs ELSE ${newestSeqs(match)} END FROM (SELECT ${newestSeqs(match, true)} AS seqs OFFSET 0) r)::bigint[]`;
    const windowed = (match: string) =>
      viaIndex ? scoredFrom(withK(`o.seq = ANY(${windowSeqs(match)})`)) : scoredFrom(newest(match));
    // Each term's window scored on its own (a row in two is scored twice), so that only narrow
    // rows are merged: joined back to objects by seq, the planner would hash-join the union
    // with a scan of the whole table, and merged whole, it sorts every vector. (One
    // newest-first pass for every term's window, stopped by a window aggregate's run
    // condition, read fewer rows but cost more: 3.7 ms a statement against 2.6, measured.)
    // From a common word's second search under a change mark (#collects), its window is kept
    // apart (`windows`), each row with its window and the instant it leaves the live set, for
    // the searches after it (#keepWindows).
    const eachWindow = (of: (match: string, i: number) => string) => parsed.each.map((t, i) => ((params[`e${i}`] = t), `(${of(`@e${i}`, i)})`)).join(' UNION ALL ');
    const windows = common && !keptRows && this.#collects(windowKeys, parsed.mark) ? eachWindow((match, i) => scoredFrom(newest(match, ', o.live_until'), `, ${i} AS w, o.live_until AS until`)) : null;
    const scored =
      q.window === undefined
        ? scoredFrom(withK(where.join(' AND ')))
        : q.allTerms
          ? windowed('@match')
          : keptRows
            ? // Every window's rows as they were read last, each read once by its key: no other
              // row is read, nor matched, nor tested for liveness (each is live until the window's
              // `until`). Against one read of the newest rows down to the oldest window's start,
              // each matched and tested: 1,083 rows read for 278 (two words in 14% of 4,000
              // objects), the statement 2.8 ms against 3.3 (p50, alternating runs).
              ((params.rows = [...new Set(keptRows.flat())]), scoredFrom(withK('o.seq = ANY(@rows::bigint[])')))
            : `SELECT DISTINCT ON (o.seq) * FROM (${windows ? 'SELECT * FROM windows' : eachWindow(windowed)}) o`;
    // Scored and marked once (materialized); then only phrase hits read their text, in one lookup.
    const values = await allAsColumns<
      [...CandidateValues, scores: number[], allTerms: boolean[], phrases: boolean[], texts: ([title: string, content: string] | null)[], seqs: number[], windows: WindowRead[]]
    >(
      few || common ? this.searches.planned : this.searches.custom,
      `WITH scored AS MATERIALIZED (${scored})
       SELECT h.*, CASE WHEN h.phrase THEN (SELECT json_build_array(o.title, o.content) FROM objects o WHERE o.seq = h.seq) END AS text
       FROM (SELECT * FROM scored WHERE score > 0 ORDER BY score DESC, seq ${limitSql(q.limit)}) h`,
      ['id', 'created_at', 'verification_count', 'contradiction_count', 'score', 'all_terms', 'phrase', 'text', 'seq'],
      params,
      windows
        ? {
            with: `windows AS MATERIALIZED (${windows})`,
            after: '(SELECT json_agg(json_build_array(s.w, s.seqs, s.until)) FROM (SELECT w, array_agg(seq) AS seqs, min(until) AS until FROM windows GROUP BY w) s)',
          }
        : undefined,
    );
    if (windows) this.#keepWindows(windowKeys, parsed.mark!, q.live.now, values[9]);
    const [, , , , scores, holdsAll, phrases, texts, seqs] = values;
    // Best first, as the statement picked them: the scores read back as the very doubles.
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
   * costs it 0.24 ms more than reading the windows alone, 1.58 against 1.34): only where one of
   * its words was searched before under the same change mark. Where writes come between searches
   * of a word, its window would never be used.
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
    const parsed = await this.#parse(q.terms, q.stemmed ? 'english' : 'simple');
    if (parsed.lexemes.length === 0) return 0;
    // The rarest lexeme's objects (counted when the query was parsed) bound the count: fewer than
    // asked, and nothing is counted (a hybrid search holding a rare word, an error code say,
    // goes straight to its OR query).
    const rarest = Math.min(...parsed.df);
    if (rarest < upTo) return rarest;
    // The GIN index's matches, unscored, and no further than upTo; planned once where the AND
    // query would be (hybrid searches with every query new 4-5% faster, interleaved runs). Where
    // the words often meet, the table read in order instead, until upTo are in (the match called
    // as a function, which no index serves).
    const column = q.stemmed ? 'o.stems' : 'o.words';
    const few = fewMatches(q, rarest);
    const inOrder = !few && !indexReadCheaper((await this.#corpus()).total, parsed.df, upTo, 'count');
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

  /**
   * The query as tsqueries, parsed once: any term, all terms, the phrase, and each lexeme on its
   * own with how many objects hold it. Bound as constants, a tsquery is not parsed again for
   * every row a scan reads. Read again after any write: an AND query and its OR query share one
   * reading, and so do repeated queries until anything is written. A lexeme's frequency counts
   * each of its rows, so it is kept for every query holding that lexeme (under the mark, or
   * longer: COUNT_KEPT_FROM): the statement counts only the lexemes not known, and a query of
   * known words needs none.
   */
  async #parse(terms: readonly string[], cfg: 'english' | 'simple'): Promise<ParsedQuery> {
    const [mark, corpus] = await Promise.all([this.changeMark(), this.#corpus()]);
    const { total } = corpus;
    const estimated = corpus.estimated[cfg === 'english' ? 'stems' : 'words'];
    const key = `${cfg} ${JSON.stringify(terms)}`;
    const cached = this.#parsed.get(key);
    const p = cached && (await cached.catch(() => null));
    if (p && mark !== null && p.mark === mark) {
      // Most recently used last, so the first key is the one to drop.
      if (this.#parsed.get(key) === cached) this.#parsed.delete(key);
      this.#parsed.set(key, cached!);
      return p;
    }
    const countOf = (lexeme: string): number | undefined => {
      const c = this.#df.get(`${cfg} ${lexeme}`);
      if (c && ((mark !== null && c.mark === mark) || (c.n >= COUNT_KEPT_FROM && countStillWeighs(c.total, total)))) return c.n;
      return estimated.get(lexeme);
    };
    const fromKnown = mark === null ? null : this.#fromKnown(terms, cfg, countOf, mark);
    if (fromKnown) return fromKnown;
    const column = cfg === 'english' ? 'stems' : 'words';
    // The lexemes the terms had before whose counts are known, as they are now: not counted again.
    const known = new Map<string, number>();
    for (const l of terms.flatMap((t) => this.#termLexemes.get(`${cfg} ${t}`) ?? [])) {
      const n = countOf(l);
      if (n !== undefined) known.set(l, n);
    }
    // And those weighed by ANALYZE's share: the statement finds which the terms hold.
    const params: Params = { all: terms.join(' '), terms: [...terms], known: [...known.keys(), ...estimated.keys()] };
    // Each term through the parser on its own, OR-ed: query syntax in a term is only text.
    const any = terms.map((t, i) => {
      params[`t${i}`] = t;
      return `plainto_tsquery('${cfg}', agentboard_fold(@t${i}))`;
    });
    const reading = one<{ any_terms: string; each_term: string[]; all_terms: string; phrase: string; lexemes: string[]; df: number[]; term_lexemes: string[] }>(
      this.db,
      `WITH l AS (SELECT DISTINCT u.lexeme, ${LEXEME_QUERY} AS q FROM unnest(to_tsvector('${cfg}', agentboard_fold(@all))) u)
       SELECT (${any.join(' || ')})::text AS any_terms,
         ARRAY[${any.map((a) => `(${a})::text`).join(', ')}] AS each_term,
         plainto_tsquery('${cfg}', agentboard_fold(@all))::text AS all_terms,
         phraseto_tsquery('${cfg}', agentboard_fold(@all))::text AS phrase,
         ARRAY(SELECT l.q::text FROM l ORDER BY l.lexeme) AS lexemes,
         ARRAY(SELECT CASE WHEN l.q::text = ANY(@known::text[]) THEN -1 ELSE (SELECT count(*) FROM objects x WHERE x.${column} @@ l.q) END::float8 FROM l ORDER BY l.lexeme) AS df,
         ARRAY(SELECT array_to_json(ARRAY(SELECT ${LEXEME_QUERY}::text FROM unnest(to_tsvector('${cfg}', agentboard_fold(t.term))) u))::text
               FROM unnest(@terms::text[]) WITH ORDINALITY t(term, n) ORDER BY t.n) AS term_lexemes`,
      params,
    ).then((r) => {
      const counted = new Map(
        r!.lexemes.map((lexeme, i) => {
          if (r!.df[i]! < 0) return [lexeme, known.get(lexeme) ?? countOf(lexeme)!];
          if (this.#df.size >= LEXEMES_KEPT) this.#df.clear();
          // Under the mark read before the statement: a write meanwhile makes it stale.
          this.#df.set(`${cfg} ${lexeme}`, { n: r!.df[i]!, mark, total });
          return [lexeme, r!.df[i]!];
        }),
      );
      if (this.#termLexemes.size >= LEXEMES_KEPT) this.#termLexemes.clear();
      terms.forEach((t, i) => this.#termLexemes.set(`${cfg} ${t}`, JSON.parse(r!.term_lexemes[i]!) as string[]));
      // In the order #fromKnown gives them, so that a query scores alike (to the last bit) either way.
      const lexemes = [...counted.keys()].sort();
      return { any: r!.any_terms, each: r!.each_term, all: r!.all_terms, phrase: r!.phrase, lexemes, df: lexemes.map((l) => counted.get(l)!), mark };
    });
    this.#parsed.set(key, reading);
    reading.catch(() => this.#parsed.get(key) === reading && this.#parsed.delete(key));
    if (this.#parsed.size > PARSED_CACHED) this.#parsed.delete(this.#parsed.keys().next().value!);
    return reading;
  }

  /**
   * The query built from earlier parses, without a statement, where each term is one lexeme (no
   * stop word, no compound) whose count is known (`countOf`): for such terms plainto_tsquery
   * and phraseto_tsquery answer their lexemes joined by & and by <->. Otherwise null.
   */
  #fromKnown(terms: readonly string[], cfg: 'english' | 'simple', countOf: (lexeme: string) => number | undefined, mark: number): ParsedQuery | null {
    const each: string[] = [];
    for (const t of terms) {
      const lexemes = this.#termLexemes.get(`${cfg} ${t}`);
      if (lexemes?.length !== 1 || countOf(lexemes[0]!) === undefined) return null;
      each.push(lexemes[0]!);
    }
    const lexemes = [...new Set(each)].sort();
    return { any: each.join(' | '), each, all: each.join(' & '), phrase: each.join(' <-> '), lexemes, df: lexemes.map((l) => countOf(l)!), mark };
  }

  /** The first query waits for the figures; later ones use the last figures while newer ones are read. */
  async #corpus(): Promise<CorpusStats> {
    const last = this.#stats;
    if (last && Date.now() < last.due) return last;
    const started = Date.now();
    this.#reading ??= one<{ total: number; words: number | null; stems: number | null; sampled: Record<string, [string[] | null, number[] | null]> | null }>(
      this.db,
      `SELECT count(*)::float8 AS total, avg(length(words))::float8 AS words, avg(length(stems))::float8 AS stems, ${SAMPLED_SHARES} AS sampled FROM objects`,
    )
      .then(
        (r) =>
          (this.#stats = {
            total: r!.total,
            words: r!.words ?? 1,
            stems: r!.stems ?? 1,
            estimated: { words: estimatesOf(r!.sampled, 'words', r!.total), stems: estimatesOf(r!.sampled, 'stems', r!.total) },
            due: corpusStatsDue(Date.now(), Date.now() - started),
          }),
      )
      .finally(() => (this.#reading = null));
    if (!last) return this.#reading;
    this.#reading.catch(() => undefined);
    return last;
  }
}
