/**
 * Full-text statements on a thread of their own. better-sqlite3 runs a statement on the event
 * loop's thread: a search's FTS5 query (about half a millisecond on the bench's board) held up
 * every other request meanwhile, while the machine's other core idled. This thread runs them on
 * a read-only connection of its own; the request thread passes the SQL and its parameters and
 * gets the rows. In WAL mode that connection reads the last committed state, as the store's
 * own does between transactions (its reads wait at the write gate while one is open).
 *
 * The thread starts with the first statement; if it ends (a crash), what it was asked fails and
 * the next statement starts another.
 */
import { Worker } from 'node:worker_threads';

/** Runs a read-only statement, answering its rows as arrays of column values. */
export type ReadRows = (sql: string, params: Record<string, unknown>) => Promise<unknown[][]>;

/** The thread's heap, in MiB: its young generation, where each answer's rows are made, and the rest. */
const YOUNG_MB = 2;
const OLD_MB = 64;

type Reply = { id: number; rows: unknown[][] } | { id: number; error: { message: string; code?: string } };

interface Pending {
  worker: Worker;
  resolve: (rows: unknown[][]) => void;
  reject: (err: Error) => void;
}

export class SearchThread {
  #worker: Worker | null = null;
  readonly #pending = new Map<number, Pending>();
  #next = 0;

  constructor(
    private readonly path: string,
    private readonly busyTimeoutMs: number,
    /** The thread's connection's page cache, in KiB. */
    private readonly cacheKib: number,
  ) {}

  readonly rows: ReadRows = (sql, params) => {
    const worker = this.#start();
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { worker, resolve, reject });
      // Kept alive while it owes an answer, so that a caller awaiting one is not left hanging.
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ id, sql, params });
    });
  };

  /** Ends the thread and closes its connection, so that the store's close is the file's last. */
  async stop(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    if (!worker) return;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.ref();
    worker.postMessage('stop');
    await exited;
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./search-worker.mjs', import.meta.url), {
      workerData: { path: this.path, busyTimeoutMs: this.busyTimeoutMs, cacheKib: this.cacheKib },
      // What it holds is a connection, its statements and one answer at a time: a small heap
      // keeps the process's memory near what it was with no thread (V8's default young
      // generation alone let RSS grow by up to 20 MiB).
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB, maxOldGenerationSizeMb: OLD_MB },
    });
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const p = this.#pending.get(reply.id);
      if (!p) return;
      this.#settle(reply.id);
      if ('rows' in reply) p.resolve(reply.rows);
      // With SQLite's code, so that a busy database is told apart as on the store's own connection.
      else p.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
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
    worker.on('exit', (code) => ended(new Error(`the search thread ended (exit code ${code})`)));
    this.#worker = worker;
    return worker;
  }

  #settle(id: number): void {
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker?.unref();
  }
}
