/**
 * A local model on a thread of its own. Embedding is CPU work (tokenizing, then the model):
 * on the request thread it held up every request while a batch of publishes was embedded
 * (measured on SQLite under 16 publishing connections: a ninth of the thread, which was the
 * limit). Here the thread takes it, and the request thread only passes texts and vectors.
 *
 * The thread starts with the first request and loads the model there; if it ends (a crash),
 * what it was asked fails and the next request starts another. It runs from dist/, built from
 * src/embed/embed-thread.ts (the tests build dist/ first, as the CLI tests do).
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PACKAGE_ROOT } from '../paths.js';
import type { Embedder } from '../ports/embedder.js';
import type { EmbedReply, EmbedRequest, EmbedThreadData } from './embed-thread.js';
import { LocalEmbedder } from './local-embedder.js';

const THREAD = join(PACKAGE_ROOT, 'dist', 'embed', 'embed-thread.js');

interface Pending {
  worker: Worker;
  resolve: (vectors: (Float32Array | null)[]) => void;
  reject: (err: Error) => void;
}

export class ThreadedEmbedder implements Embedder {
  readonly model: string;
  readonly source: string;
  readonly remedy: string;
  readonly #data: EmbedThreadData;
  #worker: Worker | null = null;
  readonly #pending = new Map<number, Pending>();
  #next = 0;

  constructor(modelRef: string, modelsDir: string, threads = 1) {
    // Names the model as the thread's embedder will (loading nothing here).
    const named = new LocalEmbedder(modelRef, modelsDir, threads);
    this.model = named.model;
    this.source = named.source;
    this.remedy = named.remedy;
    this.#data = { model: modelRef, modelsDir, threads };
  }

  embed(texts: readonly string[]): Promise<(Float32Array | null)[]> {
    if (texts.length === 0) return Promise.resolve([]);
    const worker = this.#start();
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { worker, resolve, reject });
      // Kept alive while it owes an answer, so that a caller awaiting one is not left hanging.
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ id, texts: [...texts] } satisfies EmbedRequest);
    });
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    await worker?.terminate();
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(THREAD, { workerData: this.#data });
    worker.unref();
    worker.on('message', (reply: EmbedReply) => {
      const p = this.#pending.get(reply.id);
      if (!p) return;
      this.#settle(reply.id);
      if ('error' in reply) p.reject(new Error(reply.error));
      else p.resolve(reply.vectors);
    });
    // 'error' then 'exit': what this thread owed fails once, with the first reason.
    const ended = (err: Error) => {
      if (this.#worker === worker) this.#worker = null;
      for (const [id, p] of this.#pending) {
        if (p.worker !== worker) continue;
        this.#settle(id);
        p.reject(err);
      }
    };
    worker.on('error', ended);
    worker.on('exit', (code) => ended(new Error(`the embedding thread ended (exit code ${code})`)));
    this.#worker = worker;
    return worker;
  }

  #settle(id: number): void {
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker?.unref();
  }
}
