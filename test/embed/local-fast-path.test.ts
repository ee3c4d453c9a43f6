/**
 * The bundled model answered without the inference runtime (src/embed/wordpiece.ts,
 * src/embed/static-lookup.ts) must give what transformers.js gives: the same token ids for
 * every text, and the same vectors.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../../src/embed/local-embedder.js';
import { lookupMeans, readStaticLookup } from '../../src/embed/static-lookup.js';
import { WordPieceTokenizer } from '../../src/embed/wordpiece.js';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { POTION } from '../helpers/paths.js';

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const corpus = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'eval/corpus.json'), 'utf8')) as { title: string; content: string }[];

/** Texts that reach each step's corner: accents, CJK, controls, added tokens, long words, long texts. */
const corners = [
  '',
  '   ',
  'Hello, World!',
  'naïve café résumé Ångström ﬁle',
  'ÉCOLE Straße İstanbul',
  '数据库连接池 exhausted 耗尽',
  'emoji 🔥 fire 👩‍💻 and 𠀀 beyond the BMP',
  'tab\there\nnew line\rreturn\vvertical\fform feed',
  'nul\u0000char replacement\ufffdchar zero\u200bwidth bom\ufeffhere soft\u00adhyphen',
  'nbsp\u00a0thin\u2009ideographic\u3000space',
  '[CLS] literal [SEP] tokens [MASK] and [UNK] or [PAD][PAD] and [cls]',
  'a'.repeat(101),
  `x${'b'.repeat(99)}`,
  'supercalifragilisticexpialidocious antidisestablishmentarianism',
  'connection-pool_exhausted:ECONNRESET 10.0.0.1:5432 ex.com/a?b=c&d=e "quoted" (parens) {braces}',
  'combining e\u0301 a\u0308 and precomposed é ä',
  'Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３',
  // Mostly plain text with a few runs that are not: each run between spaces goes its own way.
  'A derived title cut at a word…\nA derived title cut at a word…\nThe content goes on in plain ASCII.',
  'Dashes – and — quotes ‘single’ “double”… a title…\nIt’s “plain” enough—mostly.',
  'ΟΔΟΣ ΣΑΣ Σ final sigma, a \u0301mark after a space, soft\u00ad hyphen\tand \u200b alone',
  Array.from({ length: 700 }, (_, i) => `word${i % 50}`).join(' '),
];

/** Random strings over `pieces`. */
function fuzz(n: number, seed: number, pieces: string[]): string[] {
  const next = random(seed);
  return Array.from({ length: n }, () => Array.from({ length: Math.floor(next() * 40) }, () => pieces[Math.floor(next() * pieces.length)]!).join(''));
}
/** Pieces of every class the normalizer treats apart. */
const UNICODE = ['a', 'Z', ' ', '\t', '\n', '.', ',', '-', '_', 'é', 'e\u0301', '中', '文', '\u0000', '\u0007', '\u200b', '\ufffd', '🙂', '[', ']', '[SEP]', '##', 'ing', 'pool', '\u00a0', 'ß', 'İ', '٣', 'ǅ', 'Σ', '\u0301', '…'];
/** Printable ASCII and the white space that keeps text on the ASCII path. */
const ASCII = ['Ab', 'q', '9', '-', '_', '~', '`', '{', '|', '\\', '"', "'", '@', '^', '\t', '\n', '\r', ' ', '[', 'SEP]', '[CLS]', '##', 'POOL', 'ing'];
/** The punctuation beyond ASCII that keeps text on the fast path, with ASCII and next to what leaves it. */
const PUNCTUATION = [...ASCII, '\u2013', '\u2014', '\u2018', '\u2019', '\u201c', '\u201d', '\u2026', '\u2026', 'É', '\u2015', '\u2028'];

describe('the bundled model without the inference runtime', () => {
  const texts = [...corners, ...corpus.flatMap((o) => [o.title, o.content, `${o.title}\n\n${o.content}`]), ...fuzz(400, 2026, UNICODE), ...fuzz(300, 7, ASCII), ...fuzz(300, 11, PUNCTUATION)];
  let theirs: { tokenizer: (t: string[], o: object) => { input_ids: { data: BigInt64Array; dims: number[] } } };
  const mine = WordPieceTokenizer.fromJson(JSON.parse(readFileSync(join(POTION, 'tokenizer.json'), 'utf8')), 512)!;

  beforeAll(async () => {
    const { AutoTokenizer, env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.localModelPath = `${dirname(POTION)}/`;
    theirs = { tokenizer: (await AutoTokenizer.from_pretrained(basename(POTION))) as never };
  });

  it('tokenizes every text to the ids transformers.js gives it', () => {
    expect(mine).not.toBeNull();
    for (const text of texts) {
      const ids = Array.from(theirs.tokenizer([text], { truncation: true }).input_ids.data, Number);
      expect(mine.encode(text), JSON.stringify(text)).toEqual(ids);
    }
  });

  it('embeds every text as the runtime does, to float precision', async () => {
    const { pipeline, env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.localModelPath = `${dirname(POTION)}/`;
    const extract = await pipeline('feature-extraction', basename(POTION), { dtype: 'fp32' });
    const embedder = new LocalEmbedder(POTION, '/nonexistent-models-dir');
    const sample = texts.filter((_, i) => i % 7 === 0);
    const fast = await embedder.embed(sample);
    for (const [i, text] of sample.entries()) {
      const reference = (await extract([text], { pooling: 'mean', normalize: true })).data as Float32Array;
      if (fast[i] === null) {
        // No vector where the runtime's would be all zeros or not a number.
        expect(Array.from(reference).every((x) => x === 0 || Number.isNaN(x)), JSON.stringify(text)).toBe(true);
        continue;
      }
      expect(Array.from(fast[i]!), JSON.stringify(text)).toEqual(Array.from(reference).map((x) => expect.closeTo(x, 6)));
    }
  });

  it('reads the lookup matrix only from a graph that is exactly a lookup', () => {
    const onnx = readFileSync(join(POTION, 'onnx/model.onnx'));
    const lookup = readStaticLookup(onnx)!;
    expect([lookup.rows, lookup.dims]).toEqual([29528, 64]);
    // Pooling: the mean of the rows, in float64.
    const [v] = lookupMeans(lookup, [[5, 7]]);
    expect(v![3]).toBeCloseTo((lookup.matrix[5 * 64 + 3]! + lookup.matrix[7 * 64 + 3]!) / 2, 7);
    // Exactly the rows summed in float64 (repeats included), divided, then rounded to float32.
    const next = random(7);
    const texts = Array.from({ length: 50 }, (_, i) => Array.from({ length: 1 + ((i * 7) % 60) }, () => Math.floor(next() * lookup.rows)));
    texts.push([3, 3, 3]);
    lookupMeans(lookup, texts).forEach((got, i) => {
      const ids = texts[i]!;
      const want = Float32Array.from({ length: 64 }, (_, d) => ids.reduce((sum, id) => sum + lookup.matrix[id * 64 + d]!, 0) / ids.length);
      expect(Array.from(got!)).toEqual(Array.from(want));
    });
    expect(lookupMeans(lookup, [[]])).toEqual([null]);
    // Any other graph, a cut file or bytes that are no ONNX at all: not a lookup.
    const renamed = Buffer.from(onnx);
    renamed.write('Mux', renamed.indexOf('Mul'), 'latin1');
    expect(readStaticLookup(renamed)).toBeNull();
    expect(readStaticLookup(onnx.subarray(0, onnx.length - 1000))).toBeNull();
    expect(readStaticLookup(Buffer.from('not an onnx file at all'))).toBeNull();
    expect(readStaticLookup(new Uint8Array(0))).toBeNull();
  });

  it('takes only the WordPiece family it implements', () => {
    const json = JSON.parse(readFileSync(join(POTION, 'tokenizer.json'), 'utf8'));
    expect(WordPieceTokenizer.fromJson({ ...json, model: { ...json.model, type: 'BPE' } }, 512)).toBeNull();
    expect(WordPieceTokenizer.fromJson({ ...json, normalizer: { type: 'NFKC' } }, 512)).toBeNull();
    expect(WordPieceTokenizer.fromJson({ ...json, added_tokens: [{ id: 9, content: 'x', normalized: true }] }, 512)).toBeNull();
  });
});
