/**
 * A local model through transformers.js feature extraction (mean pooling, normalised).
 * `model` is the path of a local model folder (nothing is downloaded; the default is the
 * bundled potion-base-2M) or a hub id, downloaded once into `modelsDir` on a machine with
 * internet.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { BUNDLED_MODEL } from '../paths.js';
import type { Embedder } from '../ports/embedder.js';
import { normalise } from '../ports/embedder.js';

type Extractor = (texts: string[], opts: { pooling: 'mean'; normalize: boolean }) => Promise<{ dims: number[]; data: Float32Array }>;

/** After a failed load, calls fail at once for this long instead of trying again. */
const RETRY_LOAD_AFTER_MS = 60_000;
/** transformers.js's default hub; a hub id is fetched from below it. */
const HUB = 'https://huggingface.co/';

export class LocalEmbedder implements Embedder {
  readonly model: string;
  readonly source: string;
  readonly remedy: string;
  readonly #folder: string | undefined;
  #extractor: Promise<Extractor> | undefined;
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

  /** Loads the model once; a failed load is tried again after a cool-down. */
  #load(): Promise<Extractor> {
    if (this.#failure && Date.now() - this.#failure.at < RETRY_LOAD_AFTER_MS) return Promise.reject(this.#failure.error);
    this.#extractor ??= (async () => {
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
      return (await pipeline('feature-extraction', id, { dtype: 'fp32', session_options: { intraOpNumThreads: this.threads, interOpNumThreads: 1 } })) as unknown as Extractor;
    })().catch((err: unknown) => {
      this.#extractor = undefined;
      this.#failure = { at: Date.now(), error: err };
      throw err;
    });
    return this.#extractor;
  }

  async embed(texts: readonly string[]): Promise<(Float32Array | null)[]> {
    if (texts.length === 0) return [];
    const extract = await this.#load();
    const out = await extract([...texts], { pooling: 'mean', normalize: true });
    const dims = out.dims[out.dims.length - 1]!;
    // Empty or all-unknown input comes back as NaN through the pipeline: it has no vector.
    return texts.map((_, i) => normalise(out.data.slice(i * dims, (i + 1) * dims)));
  }
}
