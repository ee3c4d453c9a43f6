/**
 * A local model through transformers.js feature extraction (mean pooling, normalised), or,
 * for a static lookup model with a BERT WordPiece tokenizer (the bundled one), the same
 * vectors computed here without the inference runtime. `model` is the path of a local model
 * folder (nothing is downloaded; the default is the bundled potion-base-2M) or a hub id,
 * downloaded once into `modelsDir` on a machine with internet.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { BUNDLED_MODEL } from '../paths.js';
import type { Embedder } from '../ports/embedder.js';
import { normalise } from '../ports/embedder.js';
import { lookupMeans, readStaticLookup } from './static-lookup.js';
import { WordPieceTokenizer } from './wordpiece.js';

interface Tensor<D> {
  dims: number[];
  data: D;
}

/** The parts of transformers.js's feature-extraction pipeline the board calls itself. */
interface Extractor {
  tokenizer(texts: string[], opts: { padding: true; truncation: true }): Record<string, unknown> & { attention_mask: Tensor<ArrayLike<bigint | number>> };
  model(inputs: Record<string, unknown>): Promise<Record<string, Tensor<Float32Array> | undefined>>;
}

/** What embeds a batch once the model is loaded: vectors before normalising (null: no token to average). */
type Engine = (texts: string[]) => Promise<(Float32Array | null)[]>;

/** After a failed load, calls fail at once for this long instead of trying again. */
const RETRY_LOAD_AFTER_MS = 60_000;
/** transformers.js's default hub; a hub id is fetched from below it. */
const HUB = 'https://huggingface.co/';

export class LocalEmbedder implements Embedder {
  readonly model: string;
  readonly source: string;
  readonly remedy: string;
  readonly #folder: string | undefined;
  #engine: Promise<Engine> | undefined;
  #failure: { at: number; error: unknown } | undefined;

  constructor(
    private readonly modelRef: string,
    private readonly modelsDir: string,
    /** onnxruntime's threads per inference; its default (one per core) spins against the board's own thread. */
    private readonly threads = 1,
  ) {
    this.#folder = existsSync(modelRef) ? resolve(modelRef) : undefined;
    this.model = `local:${this.#folder ? basename(this.#folder) : modelRef}`;
    this.source = this.#folder ?? `${HUB}${modelRef} (cached in ${resolve(modelsDir)})`;
    this.remedy = this.#folder
      ? `the folder must hold a transformers.js model (onnx/model.onnx, tokenizer.json, config.json); the bundled one is EMBEDDINGS_MODEL=${BUNDLED_MODEL}`
      : `without internet, set EMBEDDINGS_MODEL=<folder> to a local model folder (the bundled one: ${BUNDLED_MODEL}), or EMBEDDINGS=none`;
  }

  /**
   * Loads the model now when it is a static lookup (read here, no runtime), and says whether it
   * is: such a text costs less than handing it to another thread (compose.ts).
   */
  loadStaticLookup(): boolean {
    const lookup = this.#folder ? staticLookupEngine(this.#folder) : null;
    if (lookup) this.#engine = Promise.resolve(lookup);
    return lookup !== null;
  }

  /** Loads the model once; a failed load is tried again after a cool-down. */
  #load(): Promise<Engine> {
    if (this.#failure && Date.now() - this.#failure.at < RETRY_LOAD_AFTER_MS) return Promise.reject(this.#failure.error);
    this.#engine ??= (async () => {
      const lookup = this.#folder ? staticLookupEngine(this.#folder) : null;
      if (lookup) return lookup;
      const { pipeline, env, LogLevel } = await import('@huggingface/transformers');
      // Its warnings (the bundled model2vec type it maps to the base encoder) are not the
      // operator's to act on; load failures still reach our log through the rejection.
      env.logLevel = LogLevel.ERROR;
      let id = this.modelRef;
      if (this.#folder) {
        env.allowRemoteModels = false;
        env.localModelPath = `${dirname(this.#folder)}/`;
        id = basename(this.#folder);
      } else {
        env.allowRemoteModels = true;
        env.remoteHost = HUB;
        env.cacheDir = resolve(this.modelsDir);
      }
      const extractor = (await pipeline('feature-extraction', id, { dtype: 'fp32', session_options: { intraOpNumThreads: this.threads, interOpNumThreads: 1 } })) as unknown as Extractor;
      return pipelineEngine(extractor, this.model);
    })().catch((err: unknown) => {
      this.#engine = undefined;
      this.#failure = { at: Date.now(), error: err };
      throw err;
    });
    return this.#engine;
  }

  async embed(texts: readonly string[]): Promise<(Float32Array | null)[]> {
    if (texts.length === 0) return [];
    const engine = await this.#load();
    // Empty or all-unknown input has no token to average: no vector.
    return (await engine([...texts])).map((v) => v && normalise(v));
  }
}

/**
 * The pipeline's own steps (tokenize with padding, run the model), then mean pooling here:
 * the pipeline's converts the attention mask from BigInt once per dimension of every token,
 * which profiled as the largest single cost of publishing.
 */
function pipelineEngine({ tokenizer, model }: Extractor, name: string): Engine {
  return async (texts) => {
    const inputs = tokenizer(texts, { padding: true, truncation: true });
    const out = await model(inputs);
    const hidden = out.last_hidden_state ?? out.logits ?? out.token_embeddings;
    if (!hidden) throw new Error(`the model ${name} answered no token embeddings`);
    return meanPool(hidden, inputs.attention_mask.data);
  };
}

/**
 * A static lookup model with a BERT WordPiece tokenizer (the bundled one), answered without the
 * inference runtime: the same vectors, far faster (static-lookup.ts, wordpiece.ts; docs/performance.md).
 * Null for any other model folder.
 */
function staticLookupEngine(folder: string): Engine | null {
  const read = (file: string) => (existsSync(join(folder, file)) ? readFileSync(join(folder, file)) : null);
  const [tokenizerJson, configJson, onnx] = [read('tokenizer.json'), read('tokenizer_config.json'), read('onnx/model.onnx')];
  if (!tokenizerJson || !onnx) return null;
  const config = (configJson ? JSON.parse(configJson.toString('utf8')) : {}) as { model_max_length?: number; remove_space?: boolean; do_lowercase_and_remove_accent?: boolean };
  // Steps transformers.js would take before the tokenizer's own.
  if (config.remove_space || config.do_lowercase_and_remove_accent) return null;
  const json = JSON.parse(tokenizerJson.toString('utf8')) as Parameters<typeof WordPieceTokenizer.fromJson>[0];
  const tokenizer = WordPieceTokenizer.fromJson(json, config.model_max_length ?? Number.POSITIVE_INFINITY);
  const lookup = tokenizer && readStaticLookup(onnx);
  // Every id the tokenizer can answer must have its row.
  const ids = [...Object.values(json.model?.vocab ?? {}), ...(json.added_tokens ?? []).map((t) => t.id)];
  if (!tokenizer || !lookup || ids.some((id) => !Number.isInteger(id) || id < 0 || id >= lookup.rows)) return null;
  return async (texts) => lookupMeans(lookup, texts.map((t) => tokenizer.encode(t)));
}

/** Each text's mean token vector over the tokens its attention mask keeps ([texts, tokens, dims] in). */
export function meanPool(hidden: Tensor<Float32Array>, mask: ArrayLike<bigint | number>): Float32Array[] {
  const [texts = 0, tokens = 0, dims = 0] = hidden.dims;
  // Read once: a transformers.js tensor's `data` is a getter.
  const data = hidden.data;
  const sums = new Float64Array(dims);
  const out: Float32Array[] = [];
  for (let i = 0; i < texts; i++) {
    sums.fill(0);
    let kept = 0;
    for (let t = 0; t < tokens; t++) {
      if (!mask[i * tokens + t]) continue;
      kept++;
      const at = (i * tokens + t) * dims;
      for (let d = 0; d < dims; d++) sums[d]! += data[at + d]!;
    }
    const v = new Float32Array(dims);
    for (let d = 0; d < dims; d++) v[d] = sums[d]! / kept;
    out.push(v);
  }
  return out;
}
