/**
 * BM25 as FTS5's `bm25()` computes it (k1 1.2, b 0.75; title 4, topics 2, content 1), worked
 * out here from the candidates' texts. `bm25()` counts, for every query, each term's rows in
 * the index to weigh it (its IDF): on a large board with common words that count alone costs
 * more than ranking the newest matches (docs/performance.md). Here a
 * term's count is kept until the index has grown or shrunk by a hundredth, and each candidate's
 * words are counted from its text, so a search costs what its candidates cost.
 * The matches themselves still come from FTS5; only their order is computed here.
 */
import { stemmer } from 'stemmer';
import { isPlainText, words } from '../../domain/text.js';
import { countStillWeighs } from '../term-counts.js';
import { ftsToken, type Sql } from './sqlite-rows.js';

/** Column weights, in the index's column order: title, topics, content. */
export const COLUMN_WEIGHTS = [4, 2, 1] as const;
const K1 = 1.2;
const B = 0.75;
/** Rows of the terms' lists FTS5 reads to weigh them in the time this scorer takes over one row's texts. */
export const INDEX_ROWS_PER_TEXT = 20;
/** Counts and stems kept; past this many the map starts again. */
const KEPT = 50_000;

export interface Bm25Texts {
  title: string | null;
  topicsText: string | null;
  content: string | null;
}

/** What weighs a query's terms: the index's row count, its mean tokens per row, and each term's row count. */
export interface TermWeights {
  rows: number;
  avgdl: number;
  counts: number[];
}

export interface Bm25Score {
  /** The BM25 score, higher is better (`bm25()` answers its negation). */
  score: number;
  /** Every term is in the text. */
  allTerms: boolean;
  /** The terms are in the text as one phrase, adjacent and in order, within one column. */
  phrase: boolean;
}

/** Reads a SQLite varint (the FTS5 record format) at `at`; answers the value and the next offset. */
function varint(buf: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const byte = buf[at + i] ?? 0;
    value = value * 128 + (byte & 0x7f);
    if (byte < 0x80) return [value, at + i + 1];
  }
  return [value * 256 + (buf[at + 8] ?? 0), at + 9];
}

export class Fts5Bm25 {
  readonly #counts = new Map<string, { rows: number; at: number }>();
  readonly #stems = new Map<string, string>();

  constructor(
    private readonly sql: Sql,
    /** The FTS5 table, which keeps its row count and token totals in its `_data` row 1. */
    private readonly table: string,
    /** The table's tokenizer stems (porter): words are compared by stem. */
    private readonly stemmed: boolean,
    /** INDEX_ROWS_PER_TEXT; below 0, the texts always rank a window. */
    private readonly indexRowsPerText = INDEX_ROWS_PER_TEXT,
  ) {}

  /** The corpus figures (the row count and token totals exactly) and each term's row count as kept: read once a query. */
  weigh(terms: readonly string[]): TermWeights {
    const { rows, avgdl } = this.#averages();
    return { rows, avgdl, counts: terms.map((t) => Math.min(rows, this.#rowsHolding(t, rows))) };
  }

  /** The scorer of one query's terms, weighed by `weigh`: each call scores one candidate's texts. */
  scorer(terms: readonly string[], { avgdl, rows, counts }: TermWeights): (texts: Bm25Texts) => Bm25Score {
    // Each term is a phrase to FTS5 (an address is several words); the terms together make the query's phrase.
    const phrases = terms.map((t) => words(t).map((w) => this.#form(w)));
    const whole = phrases.flat();
    const idf = counts.map((n) => {
      const w = Math.log((rows - n + 0.5) / (n + 0.5));
      return w > 0 ? w : 1e-6;
    });
    const tf = new Float64Array(terms.length);
    return (texts) => {
      tf.fill(0);
      let length = 0;
      let phrase = false;
      for (let column = 0; column < COLUMN_WEIGHTS.length; column++) {
        const text = (column === 0 ? texts.title : column === 1 ? texts.topicsText : texts.content) ?? '';
        const weight = COLUMN_WEIGHTS[column]!;
        if (!this.stemmed && isPlainText(text)) {
          // Words as given in plain text, the common case: found in place, without splitting the text.
          const low = text.toLowerCase();
          length += countWords(low);
          for (let k = 0; k < phrases.length; k++) tf[k]! += weight * occurrences(low, phrases[k]!);
          if (!phrase) phrase = occurrences(low, whole, true) > 0;
          continue;
        }
        const tokens = words(text);
        for (let i = 0; i < tokens.length; i++) tokens[i] = this.#form(tokens[i]!);
        length += tokens.length;
        for (let i = 0; i < tokens.length; i++) {
          for (let k = 0; k < phrases.length; k++) if (runAt(tokens, i, phrases[k]!)) tf[k]! += weight;
          if (!phrase) phrase = runAt(tokens, i, whole);
        }
      }
      let score = 0;
      let allTerms = true;
      const norm = K1 * (1 - B + (B * length) / avgdl);
      for (let k = 0; k < phrases.length; k++) {
        const f = tf[k]!;
        if (f === 0 && phrases[k]!.length > 0) allTerms = false;
        score += (idf[k]! * (f * (K1 + 1))) / (f + norm);
      }
      return { score, allTerms, phrase };
    };
  }

  /**
   * Whether FTS5 ranks the window itself. Its `bm25()` reads every row of each term's list to
   * weigh the term (tens of nanoseconds a row), where this scorer reads the texts of the
   * window's rows instead (about a microsecond each): on a small board, or with rare terms, the
   * index ranks; with common words on a large one, the texts do. Both rank alike.
   */
  indexRanks({ counts }: TermWeights, window: number): boolean {
    return counts.reduce((a, b) => a + b, 0) <= window * this.indexRowsPerText;
  }

  /**
   * Whether no term has more rows in the index than `window`, by the kept counts: each term's
   * newest matches are all of them. (A count a hundredth stale can let a few more in, never fewer.)
   */
  everyMatchFits({ counts }: TermWeights, window: number): boolean {
    return counts.every((n) => n <= window);
  }

  /** A word as the index holds it: its Porter stem where the table stems. */
  #form(word: string): string {
    if (!this.stemmed) return word;
    let stem = this.#stems.get(word);
    if (stem === undefined) {
      if (this.#stems.size >= KEPT) this.#stems.clear();
      stem = stemmer(word);
      this.#stems.set(word, stem);
    }
    return stem;
  }

  /** The index's row count and mean tokens per row, from its averages record. */
  #averages(): { rows: number; avgdl: number } {
    const block = this.sql(`SELECT block FROM ${this.table}_data WHERE id = 1`).pluck().get() as Uint8Array | undefined;
    if (!block) return { rows: 1, avgdl: 1 };
    let [rows, at] = varint(block, 0);
    let tokens = 0;
    for (let c = 0; c < COLUMN_WEIGHTS.length && at < block.length; c++) {
      const [n, next] = varint(block, at);
      tokens += n;
      at = next;
    }
    rows = Math.max(rows, 1);
    return { rows, avgdl: Math.max(tokens / rows, 1e-9) };
  }

  /** How many rows of the index hold `term`, counted again once the row count has moved by a hundredth. */
  #rowsHolding(term: string, rows: number): number {
    const kept = this.#counts.get(term);
    if (kept && countStillWeighs(kept.at, rows)) return kept.rows;
    const n = this.sql(`SELECT count(*) FROM ${this.table} WHERE ${this.table} MATCH ?`).pluck().get(ftsToken(term)) as number;
    if (this.#counts.size >= KEPT) this.#counts.clear();
    this.#counts.set(term, { rows: n, at: rows });
    return n;
  }
}

/** Whether `tokens` holds `run` (not empty) from `at` on. */
function runAt(tokens: readonly string[], at: number, run: readonly string[]): boolean {
  if (run.length === 0 || at + run.length > tokens.length) return false;
  for (let k = 0; k < run.length; k++) if (tokens[at + k] !== run[k]) return false;
  return true;
}

/** ASCII letters and digits: the word characters of plain lowercased text. */
const isWordChar = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);

/** How many words plain lowercased text holds. */
function countWords(low: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < low.length; i++) {
    const w = isWordChar(low.charCodeAt(i));
    if (w && !inWord) n++;
    inWord = w;
  }
  return n;
}

/**
 * How many times plain lowercased text holds `run` (not empty) as consecutive whole words,
 * whatever separates them; with `first`, at most once.
 */
function occurrences(low: string, run: readonly string[], first = false): number {
  if (run.length === 0) return 0;
  let n = 0;
  for (let at = low.indexOf(run[0]!); at >= 0; at = low.indexOf(run[0]!, at + 1)) {
    if (at > 0 && isWordChar(low.charCodeAt(at - 1))) continue;
    let end = at;
    let k = 0;
    for (; k < run.length; k++) {
      if (k > 0) while (end < low.length && !isWordChar(low.charCodeAt(end))) end++;
      const word = run[k]!;
      if (!low.startsWith(word, end) || isWordChar(low.charCodeAt(end + word.length))) break;
      end += word.length;
    }
    if (k === run.length) {
      n++;
      if (first) return n;
    }
  }
  return n;
}
