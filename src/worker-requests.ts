/**
 * Requests answered by a worker thread, each matched to its answer by id: the embedding thread
 * (embed/threaded-embedder.ts) and SQLite's search thread (store/sqlite/search-thread.ts).
 *
 * The thread starts with the first request. If it ends (a crash), what it owed fails once, with
 * the first reason, and the next request starts another. It keeps the process alive only while
 * it owes an answer, so that a caller awaiting one is not left hanging and an idle thread never
 * holds a process open.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** What a thread sends back: its answer to request `id`, or why it has none (with SQLite's code, say). */
export type WorkerReply<R> = { id: number; result: R } | { id: number; error: { message: string; code?: string } };

interface Pending<R> {
  worker: Worker;
  resolve: (result: R) => void;
  reject: (err: Error) => void;
}

export class WorkerRequests<Q extends object, R> {
  #worker: Worker | null = null;
  readonly #pending = new Map<number, Pending<R>>();
  #next = 0;

  constructor(
    private readonly file: URL | string,
    private readonly options: WorkerOptions,
    /** The thread as a message names it: "the search thread". */
    private readonly name: string,
    /** Asks the thread to end by itself (closing what it holds); without it, stop() terminates it. */
    private readonly stopMessage?: unknown,
  ) {}

  /** Sends `{ id, ...request }`; answers the thread's result, or fails with its error (its `code` kept). */
  request(request: Q): Promise<R> {
    const worker = this.#start();
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { worker, resolve, reject });
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ id, ...request });
    });
  }

  /** Ends the thread; the next request starts another. */
  async stop(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    if (!worker) return;
    if (this.stopMessage === undefined) {
      await worker.terminate();
      return;
    }
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    // Held while it ends: with nothing else left, an unref'd thread would let the process exit first.
    worker.ref();
    worker.postMessage(this.stopMessage);
    await exited;
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(this.file, this.options);
    worker.unref();
    worker.on('message', (reply: WorkerReply<R>) => {
      const p = this.#pending.get(reply.id);
      if (!p) return;
      this.#settle(reply.id);
      if ('result' in reply) p.resolve(reply.result);
      else p.reject(Object.assign(new Error(reply.error.message), reply.error.code === undefined ? {} : { code: reply.error.code }));
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
    worker.on('exit', (code) => ended(new Error(`${this.name} ended (exit code ${code})`)));
    this.#worker = worker;
    return worker;
  }

  #settle(id: number): void {
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker?.unref();
  }
}
