/**
 * What BM25 weighs on PostgreSQL, as FTS5 weighs it on SQLite: the corpus's size and mean
 * lengths, and each lexeme's count of objects, counted, kept, or estimated from ANALYZE's
 * sample. Also the estimates that choose how a query's window is read (pg-lexical-statement.ts).
 * Why each count is kept, estimated or read again: docs/performance.md, Lexical search.
 */
import type { LexicalQuery } from '../../ports/search-index.js';
import { countStillWeighs } from '../term-counts.js';
import { one, type Params } from './pg-rows.js';
import type { PgSession } from './pg-session.js';

/** Corpus size and mean document length (distinct lexemes) feed BM25; re-read at most this often. */
const STATS_TTL_MS = 30_000;
/** Their statement reads every row: it runs again no sooner than this many times its last run took, so it holds a connection a hundredth of the time at most. */
const STATS_COST_RATIO = 100;

/** When corpus statistics read at `at`, by a statement that took `tookMs`, are to be read again. */
export const corpusStatsDue = (at: number, tookMs: number): number => at + Math.max(STATS_TTL_MS, STATS_COST_RATIO * tookMs);

/** Parsed queries kept (least recently used go first). */
const PARSED_CACHED = 1000;
/** Lexemes kept per term, and document frequencies per lexeme: past this many, each map starts again. */
export const LEXEMES_KEPT = 20_000;
/**
 * A lexeme at least this many objects hold keeps its count across writes, until the board's
 * object count has moved by a hundredth (term-counts.ts). A rarer one is counted again after any
 * write, exactly: its count bounds the all-terms count, and costs little.
 */
const COUNT_KEPT_FROM = 1000;
/**
 * A lexeme that ANALYZE's sample puts in at least this many objects, and in at least this share
 * of them, is weighed by that share of the object count and never counted: its weight is then
 * as close as a count kept until the board grows by a hundredth.
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
 * most twice its size): reading them all off the GIN index is then never far from the best plan,
 * and its statements are planned once per connection.
 */
export const fewMatches = (q: Pick<LexicalQuery, 'window'>, bound: number): boolean => q.window !== undefined && bound <= 2 * q.window;
/** The objects of `total` holding every word, as if the words met by chance: at least one. */
const estimatedMatches = (total: number, counts: readonly number[]): number => Math.max(1, counts.reduce((m, n) => (m * Math.min(n, total)) / total, total));

/** Relative costs of reading a row: off the GIN index (random heap pages), in the table's order, and one posting of the index. */
const ROW_OFF_INDEX = 2.6;
const ROW_IN_ORDER = 0.64;
const POSTINGS_PER_ROW = 40;

/**
 * Whether the matches of every word are found sooner through the GIN index than by reading the
 * table until enough are in: `wanted` of them, the newest (`window`) or any (`count`), estimated
 * from each lexeme's count as if the words met by chance, against one read newest first through
 * the seq index. The planner prices the match of a row read in order as nearly free, so it must
 * not choose. A read of the index confined to the newest `rows` (recentBuckets) reads their
 * share of the postings and of the matches.
 */
export function indexReadCheaper(total: number, counts: readonly number[], wanted: number, read: 'window' | 'count', rows = total): boolean {
  if (total <= 0) return true;
  const matches = estimatedMatches(total, counts);
  const share = Math.min(1, rows / total);
  const inOrder = (read === 'window' ? 1 : ROW_IN_ORDER) * Math.min(total, (wanted * total) / matches);
  const viaIndex = share * (counts.reduce((sum, n) => sum + n, 0) / POSTINGS_PER_ROW + ROW_OFF_INDEX * (read === 'window' ? matches : Math.min(matches, wanted)));
  return viaIndex < inOrder;
}

/** The GIN indexes' second column files each row under its bucket of 2^12 seqs (migration 11: `seq >> 12`). */
export const BUCKET_BITS = 12;
export const BUCKET_ROWS = 2 ** BUCKET_BITS;
/** An AND window read off the newest buckets alone reads enough of them to hold its matches this many times over, by the estimate. */
const RECENT_MARGIN = 1.2;
/**
 * How many of the newest buckets of seqs an AND query's `wanted` newest matches are likely in,
 * RECENT_MARGIN times over, by indexReadCheaper's estimate; undefined where that is half the
 * board or more, and the whole index costs little more to read. Asked for those buckets too, GIN
 * skips each word's postings to other rows. Words tend to meet more often than by chance, which
 * widens the margin.
 */
export function recentBuckets(total: number, counts: readonly number[], wanted: number): number | undefined {
  const rows = (RECENT_MARGIN * wanted * total) / estimatedMatches(total, counts);
  // One more for the newest bucket, which is filling.
  return rows < total / 2 ? Math.ceil(rows / BUCKET_ROWS) + 1 : undefined;
}

/** A word that at least this share of the objects holds is common: the newest rows hold its window within about 1 / COMMON_SHARE times its size. */
export const COMMON_SHARE = 0.1;

/** `u.lexeme` as a one-lexeme tsquery, quoted as tsquery input is (no parser: compounds stay whole). */
const LEXEME_QUERY = String.raw`('''' || replace(replace(u.lexeme, '\', '\\'), '''', '''''') || '''')::tsquery`;

export interface ParsedQuery {
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

export interface CorpusStats {
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

type Sampled = Record<string, [string[] | null, number[] | null]> | null;

/** The estimated counts (estimatedCount) of pg_stats' lexemes, by one-lexeme tsquery text, quoted as LEXEME_QUERY quotes it. */
function estimatesOf(sampled: Sampled, column: 'words' | 'stems', total: number): Map<string, number> {
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

type Cfg = 'english' | 'simple';
type ParseRow = { any_terms: string; each_term: string[]; all_terms: string; phrase: string; lexemes: string[]; df: number[]; term_lexemes: string[] };

/** The statement that parses `terms` and counts the lexemes not `known` (one per term, OR-ed: query syntax in a term is only text). */
function parseStatement(terms: readonly string[], cfg: Cfg, known: readonly string[]): { sql: string; params: Params } {
  const column = cfg === 'english' ? 'stems' : 'words';
  const params: Params = { all: terms.join(' '), terms: [...terms], known: [...known] };
  const any = terms.map((t, i) => ((params[`t${i}`] = t), `plainto_tsquery('${cfg}', agentboard_fold(@t${i}))`));
  const sql = `WITH l AS (SELECT DISTINCT u.lexeme, ${LEXEME_QUERY} AS q FROM unnest(to_tsvector('${cfg}', agentboard_fold(@all))) u)
     SELECT (${any.join(' || ')})::text AS any_terms,
       ARRAY[${any.map((a) => `(${a})::text`).join(', ')}] AS each_term,
       plainto_tsquery('${cfg}', agentboard_fold(@all))::text AS all_terms,
       phraseto_tsquery('${cfg}', agentboard_fold(@all))::text AS phrase,
       ARRAY(SELECT l.q::text FROM l ORDER BY l.lexeme) AS lexemes,
       ARRAY(SELECT CASE WHEN l.q::text = ANY(@known::text[]) THEN -1 ELSE (SELECT count(*) FROM objects x WHERE x.${column} @@ l.q) END::float8 FROM l ORDER BY l.lexeme) AS df,
       ARRAY(SELECT array_to_json(ARRAY(SELECT ${LEXEME_QUERY}::text FROM unnest(to_tsvector('${cfg}', agentboard_fold(t.term))) u))::text
             FROM unnest(@terms::text[]) WITH ORDINALITY t(term, n) ORDER BY t.n) AS term_lexemes`;
  return { sql, params };
}

/** Queries parsed into tsqueries, and the counts and corpus figures that weigh their lexemes. */
export class PgLexemes {
  #stats: CorpusStats | null = null;
  #reading: Promise<CorpusStats> | null = null;
  readonly #parsed = new Map<string, Promise<ParsedQuery>>();
  /** Each query term's lexemes, by configuration and term, as the parse found them: parsing reads no data. */
  readonly #termLexemes = new Map<string, string[]>();
  /** Document frequencies by configuration and lexeme, with the change mark and the object count they were counted at. */
  readonly #df = new Map<string, { n: number; mark: number | null; total: number }>();

  constructor(
    /** For the statements that read the whole table: the pool. */
    private readonly db: PgSession,
    /**
     * For parsing queries and counting their lexemes: connections that plan each statement once.
     * Nothing in its plan depends on the values (the lexemes come out of the statement itself),
     * and planning it anew each time had cost as much as running it.
     */
    private readonly parsing: PgSession,
    /** Moves with every write any instance makes (PgStore.changeMark); null while unknown. */
    private readonly changeMark: () => Promise<number | null>,
  ) {}

  /**
   * The query as tsqueries, parsed once: any term, all terms, the phrase, and each lexeme with
   * how many objects hold it. Bound as constants, a tsquery is not parsed again for every row.
   * Read again after any write; a lexeme's count is kept for every query holding it (under the
   * mark, or longer: COUNT_KEPT_FROM), so only lexemes not known are counted.
   */
  async parse(terms: readonly string[], cfg: Cfg): Promise<ParsedQuery> {
    const [mark, corpus] = await Promise.all([this.changeMark(), this.corpus()]);
    const key = `${cfg} ${JSON.stringify(terms)}`;
    const cached = this.#parsed.get(key);
    const p = cached && (await cached.catch(() => null));
    if (p && mark !== null && p.mark === mark) {
      // Most recently used last, so the first key is the one to drop.
      if (this.#parsed.get(key) === cached) this.#parsed.delete(key);
      this.#parsed.set(key, cached!);
      return p;
    }
    const countOf = this.#countOf(cfg, mark, corpus);
    const fromKnown = mark === null ? null : this.#fromKnown(terms, cfg, countOf, mark);
    if (fromKnown) return fromKnown;
    const reading = this.#read(terms, cfg, countOf, mark, corpus);
    this.#parsed.set(key, reading);
    reading.catch(() => this.#parsed.get(key) === reading && this.#parsed.delete(key));
    if (this.#parsed.size > PARSED_CACHED) this.#parsed.delete(this.#parsed.keys().next().value!);
    return reading;
  }

  /** A lexeme's count where it is known now: counted under this mark, kept (COUNT_KEPT_FROM), or estimated. */
  #countOf(cfg: Cfg, mark: number | null, corpus: CorpusStats): (lexeme: string) => number | undefined {
    const estimated = corpus.estimated[cfg === 'english' ? 'stems' : 'words'];
    return (lexeme) => {
      const c = this.#df.get(`${cfg} ${lexeme}`);
      if (c && ((mark !== null && c.mark === mark) || (c.n >= COUNT_KEPT_FROM && countStillWeighs(c.total, corpus.total)))) return c.n;
      return estimated.get(lexeme);
    };
  }

  /** Parses `terms` with a statement that counts only the lexemes whose counts are not known. */
  async #read(terms: readonly string[], cfg: Cfg, countOf: (lexeme: string) => number | undefined, mark: number | null, corpus: CorpusStats): Promise<ParsedQuery> {
    const known = new Map<string, number>();
    for (const l of terms.flatMap((t) => this.#termLexemes.get(`${cfg} ${t}`) ?? [])) {
      const n = countOf(l);
      if (n !== undefined) known.set(l, n);
    }
    // And those weighed by ANALYZE's share: the statement finds which the terms hold.
    const { sql, params } = parseStatement(terms, cfg, [...known.keys(), ...corpus.estimated[cfg === 'english' ? 'stems' : 'words'].keys()]);
    const r = (await one<ParseRow>(this.parsing, sql, params))!;
    const counted = new Map(
      r.lexemes.map((lexeme, i) => {
        if (r.df[i]! < 0) return [lexeme, known.get(lexeme) ?? countOf(lexeme)!];
        if (this.#df.size >= LEXEMES_KEPT) this.#df.clear();
        // Under the mark read before the statement: a write meanwhile makes it stale.
        this.#df.set(`${cfg} ${lexeme}`, { n: r.df[i]!, mark, total: corpus.total });
        return [lexeme, r.df[i]!];
      }),
    );
    if (this.#termLexemes.size >= LEXEMES_KEPT) this.#termLexemes.clear();
    terms.forEach((t, i) => this.#termLexemes.set(`${cfg} ${t}`, JSON.parse(r.term_lexemes[i]!) as string[]));
    // In the order #fromKnown gives them, so that a query scores alike (to the last bit) either way.
    const lexemes = [...counted.keys()].sort();
    return { any: r.any_terms, each: r.each_term, all: r.all_terms, phrase: r.phrase, lexemes, df: lexemes.map((l) => counted.get(l)!), mark };
  }

  /**
   * The query built from earlier parses, without a statement, where each term is one lexeme (no
   * stop word, no compound) whose count is known: for such terms plainto_tsquery and
   * phraseto_tsquery answer their lexemes joined by & and by <->. Otherwise null.
   */
  #fromKnown(terms: readonly string[], cfg: Cfg, countOf: (lexeme: string) => number | undefined, mark: number): ParsedQuery | null {
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
  async corpus(): Promise<CorpusStats> {
    const last = this.#stats;
    if (last && Date.now() < last.due) return last;
    const started = Date.now();
    this.#reading ??= one<{ total: number; words: number | null; stems: number | null; sampled: Sampled }>(
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
