/**
 * Write-ahead-log checkpoints off the request path. better-sqlite3 runs on the event loop's
 * thread, and SQLite's automatic checkpoint runs inside the COMMIT that crosses its threshold:
 * copying the log's pages back into the database file and syncing it held every request up
 * meanwhile (half the time spent in COMMIT under a publishing load). A worker thread with a
 * connection of its own checkpoints every `intervalMs` instead, PASSIVE: it never waits for
 * this process's readers or writers, nor blocks them.
 *
 * A PASSIVE checkpoint racing a steady stream of commits may never reach the log's end, and the
 * log starts again from its beginning only once one has. So the committing connection keeps an
 * automatic checkpoint of its own, at BACKSTOP_PAGES: it runs between two of its own commits and
 * finishes, with most frames already copied by the thread, and the next write restarts the log.
 * Should the thread end unexpectedly, that checkpoint returns to SQLite's default threshold.
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** SQLite's own automatic checkpoint threshold, in pages. */
export const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;
/** The committing connection's threshold while the thread checkpoints. */
export const BACKSTOP_PAGES = 10 * DEFAULT_AUTOCHECKPOINT_PAGES;

export class Checkpointer {
  readonly #worker: Worker;
  #stopping = false;
  readonly #exited: Promise<void>;

  constructor(db: Database.Database, path: string, intervalMs: number, warn?: (message: string, err: unknown) => void) {
    const busyTimeoutMs = Number(db.pragma('busy_timeout', { simple: true }));
    this.#worker = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), { workerData: { path, intervalMs, busyTimeoutMs } });
    // Never what keeps a process alive: close() stops it, and an exit without close() loses nothing.
    this.#worker.unref();
    let failure: unknown = null;
    this.#worker.on('error', (err) => (failure = err));
    this.#exited = new Promise((resolve) => this.#worker.once('exit', () => resolve()));
    void this.#exited.then(() => {
      if (this.#stopping || !db.open) return;
      db.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
      warn?.('the write-ahead log checkpoint thread ended; commits checkpoint the log again, as SQLite does by default', failure);
    });
    db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  }

  /** Ends the thread and closes its connection, so that the owner's close is the file's last. */
  async stop(): Promise<void> {
    if (!this.#stopping) {
      this.#stopping = true;
      // Held while it ends: with nothing else left (a server already closed), an unref'd thread
      // would let the process exit before the owner's close, and before whatever follows it.
      this.#worker.ref();
      this.#worker.postMessage('stop');
    }
    await this.#exited;
  }
}
