/**
 * The BERT WordPiece tokenizer (BertNormalizer, BertPreTokenizer, WordPiece, [CLS] … [SEP]) as
 * transformers.js runs it, token for token, without its per-character regular expressions and
 * arrays, which were a large share of the board's time to publish.
 * `fromJson` takes a tokenizer.json and answers null for anything outside this family, which
 * then goes through transformers.js. test/embed/local-fast-path.test.ts holds the two equal.
 */

interface AddedToken {
  id: number;
  content: string;
  normalized?: boolean;
  lstrip?: boolean;
  rstrip?: boolean;
}

interface TokenizerJson {
  added_tokens?: AddedToken[];
  normalizer?: { type?: string; clean_text?: boolean; handle_chinese_chars?: boolean; strip_accents?: boolean | null; lowercase?: boolean } | null;
  pre_tokenizer?: { type?: string } | null;
  post_processor?: { type?: string; single?: ({ SpecialToken?: { id: string } } | { Sequence?: { id: string } })[] } | null;
  model?: { type?: string; vocab?: Record<string, number>; unk_token?: string; continuing_subword_prefix?: string; max_input_chars_per_word?: number; fuse_unk?: boolean };
}

// transformers.js's own patterns, so that both split and clean text alike.
const PUNCTUATION = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const WORDS = new RegExp(`[^\\s${PUNCTUATION}]+|[${PUNCTUATION}]`, 'gu');
/**
 * The same split for printable ASCII, where every character but letters and digits is
 * punctuation, and for the few other punctuation marks PLAIN lets through.
 */
const ASCII_WORDS = /[0-9A-Za-z]+|[!-/:-@[-`{-~\u2013\u2014\u2018\u2019\u201c\u201d\u2026]/g;
/** What cleaning drops: NUL, U+FFFD and control characters other than tab, newline and return. */
const DROPPED = /[\0\ufffd]|(?![\t\n\r])[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/gu;
const SPACES = /\s/gu;
/** CJK ideographs, by UTF-16 unit as transformers.js tests them (so none beyond the BMP). */
const CHINESE = /[\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff]/g;
const MARKS = /\p{Mn}/gu;
/**
 * Text the character-by-character steps leave with the same words: printable ASCII, the white
 * space they would turn into spaces (words never hold white space), and punctuation they leave
 * as it is (no control character, case, decomposition or mark), each mark a word of its own as
 * ASCII punctuation is: dashes, curly quotes and `…`, which ends every derived title (and sent a
 * published object's text down the slow path, at twice the time).
 */
const PLAIN = /^[\t\n\r\x20-\x7e\u2013\u2014\u2018\u2019\u201c\u201d\u2026]*$/;
/** The white space every normalizer step keeps as white space (the others are dropped or mapped). */
const ASCII_SPACES = /[\t\n\r ]+/;
/** Words whose pieces are remembered, so a common word is split once. */
const WORDS_KEPT = 50_000;

export class WordPieceTokenizer {
  readonly #pieces = new Map<string, number[]>();

  private constructor(
    private readonly vocab: Map<string, number>,
    private readonly unk: number,
    private readonly cls: number,
    private readonly sep: number,
    private readonly prefix: string,
    private readonly maxWordChars: number,
    /** Added tokens: found in the raw text, they are kept whole. */
    private readonly added: { pattern: RegExp; ids: ReadonlyMap<string, number> } | null,
    private readonly normalizer: { clean: boolean; chinese: boolean; lowercase: boolean; stripAccents: boolean },
    /** Tokens at most, [CLS] and [SEP] included (what a model takes; the rest is cut). */
    private readonly maxTokens: number,
  ) {}

  /** The tokenizer of `json`, or null when it is not exactly the BERT WordPiece family. */
  static fromJson(json: TokenizerJson, maxTokens: number): WordPieceTokenizer | null {
    const { normalizer: n, pre_tokenizer: pre, post_processor: post, model } = json;
    if (model?.type !== 'WordPiece' || !model.vocab || model.fuse_unk) return null;
    if (n?.type !== 'BertNormalizer' || pre?.type !== 'BertPreTokenizer' || post?.type !== 'TemplateProcessing') return null;
    const single = (post.single ?? []).map((item) => ('SpecialToken' in item ? `special:${item.SpecialToken!.id}` : 'Sequence' in item ? `sequence:${item.Sequence!.id}` : '?'));
    if (single.join(' ') !== 'special:[CLS] sequence:A special:[SEP]') return null;
    const added = json.added_tokens ?? [];
    // Normalized or stripping added tokens take steps this class does not take.
    if (added.some((t) => t.normalized || t.lstrip || t.rstrip)) return null;
    const vocab = new Map(Object.entries(model.vocab));
    const addedIds = new Map(added.map((t) => [t.content, t.id]));
    const idOf = (t: string) => addedIds.get(t) ?? vocab.get(t);
    const [unk, cls, sep] = [idOf(model.unk_token ?? '[UNK]'), idOf('[CLS]'), idOf('[SEP]')];
    if (unk === undefined || cls === undefined || sep === undefined) return null;
    const lowercase = n.lowercase ?? true;
    return new WordPieceTokenizer(
      vocab,
      unk,
      cls,
      sep,
      model.continuing_subword_prefix ?? '##',
      model.max_input_chars_per_word ?? 100,
      addedIds.size === 0 ? null : { pattern: alternatives([...addedIds.keys()]), ids: addedIds },
      {
        clean: n.clean_text ?? true,
        chinese: n.handle_chinese_chars ?? true,
        lowercase,
        stripAccents: lowercase ? n.strip_accents !== false : n.strip_accents === true,
      },
      Math.max(2, maxTokens),
    );
  }

  /** Token ids of `text`: [CLS], its pieces, [SEP], cut to the most a model takes. */
  encode(text: string): number[] {
    const ids = [this.cls];
    for (const section of this.#splitAdded(text)) {
      if (typeof section === 'number') ids.push(section);
      else for (const word of this.#words(section)) for (const id of this.#wordPieces(word)) ids.push(id);
    }
    ids.push(this.sep);
    if (ids.length > this.maxTokens) ids.length = this.maxTokens;
    return ids;
  }

  /** The text in pieces: added tokens (as their ids) at their leftmost, longest occurrences, and the text between. */
  #splitAdded(text: string): (string | number)[] {
    if (!this.added || !this.added.pattern.test(text)) return [text];
    // Split by a capturing pattern: text, token, text, … (the longest alternative listed first).
    return text.split(this.added.pattern).map((part, i) => (i % 2 === 1 ? this.added!.ids.get(part)! : part)).filter((part) => part !== '');
  }

  /**
   * BertNormalizer, then BertPreTokenizer's words. No step joins or splits across ASCII white
   * space (cleaning keeps it as space, lowercasing's context and NFD stop at it), so a text is
   * taken a run between spaces at a time: the plain runs, nearly all of them, by the fast path,
   * and only the others character by character.
   * Plain runs next to each other go through the fast path together: cut from a text of wider
   * characters, each is stored wide too, and lowercasing one then costs a call into ICU per word.
   */
  #words(text: string): string[] {
    if (PLAIN.test(text)) return this.#plainWords(text);
    const words: string[] = [];
    let plain: string[] = [];
    const takePlain = () => {
      if (plain.length) for (const w of this.#plainWords(plain.join(' '))) words.push(w);
      plain = [];
    };
    for (const run of text.split(ASCII_SPACES)) {
      if (run === '') continue;
      if (PLAIN.test(run)) plain.push(run);
      else {
        takePlain();
        for (const w of this.#normalizedWords(run)) words.push(w);
      }
    }
    takePlain();
    return words;
  }

  #plainWords(text: string): string[] {
    return (this.normalizer.lowercase ? text.toLowerCase() : text).match(ASCII_WORDS) ?? [];
  }

  #normalizedWords(text: string): string[] {
    const n = this.normalizer;
    if (n.clean) text = text.replace(DROPPED, '').replace(SPACES, ' ');
    if (n.chinese) text = text.replace(CHINESE, ' $& ');
    if (n.lowercase) text = text.toLowerCase();
    if (n.stripAccents) text = text.normalize('NFD').replace(MARKS, '');
    return text.trim().match(WORDS) ?? [];
  }

  /** The pieces' ids, or [UNK] alone when the word is too long or a part of it is no piece. */
  #split(chars: string[]): number[] {
    if (chars.length > this.maxWordChars) return [this.unk];
    const ids: number[] = [];
    const piece = (start: number, end: number) => this.vocab.get((start > 0 ? this.prefix : '') + chars.slice(start, end).join(''));
    for (let start = 0; start < chars.length; ) {
      let end = chars.length;
      let id = piece(start, end);
      while (id === undefined && --end > start) id = piece(start, end);
      if (id === undefined) return [this.unk];
      ids.push(id);
      start = end;
    }
    return ids;
  }

  /** WordPiece: the longest known piece from the left, then the longest continuation, … or [UNK] for the word. */
  #wordPieces(word: string): number[] {
    const kept = this.#pieces.get(word);
    if (kept) return kept;
    const ids = this.#split([...word]);
    if (this.#pieces.size >= WORDS_KEPT) this.#pieces.clear();
    this.#pieces.set(word, ids);
    return ids;
  }
}

/** One capturing pattern matching any of `words`, the longer first where one starts another. */
function alternatives(words: string[]): RegExp {
  const escaped = [...words].sort((a, b) => b.length - a.length).map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return new RegExp(`(${escaped.join('|')})`);
}
