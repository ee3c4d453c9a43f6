/**
 * A local model on a thread of its own. Embedding is CPU work (tokenizing, then the model):
 * on the request thread it held up every request while a batch of publishes was embedded, and
 * on SQLite that thread is the limit. Here the thread takes it, and the request thread only
 * passes texts and vectors.
 *
 * The thread starts with the first request and loads the model there; if it ends (a crash),
 * what it was asked fails and the next request starts another. It runs from dist/, built from
 * src/embed/embed-thread.ts (the tests build dist/ first, as the CLI tests do).
 */
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';
import type { Embedder } from '../ports/embedder.js';
import { WorkerRequests } from '../worker-requests.js';
import type { EmbedRequest, EmbedThreadData } from './embed-thread.js';
import { LocalEmbedder } from './local-embedder.js';

const THREAD = join(PACKAGE_ROOT, 'dist', 'embed', 'embed-thread.js');

export class ThreadedEmbedder implements Embedder {
  readonly model: string;
  readonly source: string;
  readonly remedy: string;
  readonly #thread: WorkerRequests<EmbedRequest, (Float32Array | null)[]>;

  constructor(modelRef: string, modelsDir: string, threads = 1) {
    // Names the model as the thread's embedder will (loading nothing here).
    const named = new LocalEmbedder(modelRef, modelsDir, threads);
    this.model = named.model;
    this.source = named.source;
    this.remedy = named.remedy;
    const workerData: EmbedThreadData = { model: modelRef, modelsDir, threads };
    this.#thread = new WorkerRequests(THREAD, { workerData }, 'the embedding thread');
  }

  embed(texts: readonly string[]): Promise<(Float32Array | null)[]> {
    if (texts.length === 0) return Promise.resolve([]);
    return this.#thread.request({ texts: [...texts] });
  }

  close(): Promise<void> {
    return this.#thread.stop();
  }
}
