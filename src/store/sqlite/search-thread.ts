/**
 * Full-text statements on a thread of their own. better-sqlite3 runs a statement on the event
 * loop's thread: a search's FTS5 query (about half a millisecond on the bench's board) held up
 * every other request meanwhile, while the machine's other core idled. This thread runs them on
 * a read-only connection of its own; the request thread passes the SQL and its parameters and
 * gets the rows. In WAL mode that connection reads the last committed state, as the store's
 * own does between transactions (its reads wait at the write gate while one is open).
 *
 * The thread starts with the first statement; if it ends (a crash), what it was asked fails and
 * the next statement starts another (worker-requests.ts).
 */
import { WorkerRequests } from '../../worker-requests.js';

/** Runs a read-only statement, answering its rows as arrays of column values. */
export type ReadRows = (sql: string, params: Record<string, unknown>) => Promise<unknown[][]>;

/** The thread's heap, in MiB: its young generation, where each answer's rows are made, and the rest. */
const YOUNG_MB = 2;
const OLD_MB = 64;

export class SearchThread {
  readonly #thread: WorkerRequests<{ sql: string; params: Record<string, unknown> }, unknown[][]>;

  constructor(
    path: string,
    busyTimeoutMs: number,
    /** The thread's connection's page cache, in KiB. */
    cacheKib: number,
  ) {
    this.#thread = new WorkerRequests(
      new URL('./search-worker.mjs', import.meta.url),
      {
        workerData: { path, busyTimeoutMs, cacheKib },
        // What it holds is a connection, its statements and one answer at a time: a small heap
        // is enough, and every MiB of it counts in the process's memory.
        resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB, maxOldGenerationSizeMb: OLD_MB },
      },
      'the search thread',
      // Asked to stop, it closes its connection first, so that the store's close is the file's last.
      'stop',
    );
  }

  readonly rows: ReadRows = (sql, params) => this.#thread.request({ sql, params });

  /** Ends the thread and closes its connection; the next statement starts another. */
  stop(): Promise<void> {
    return this.#thread.stop();
  }
}
