/**
 * One SQLite connection serves every request of the process, and better-sqlite3 is
 * synchronous: a statement always runs alone. A transaction that awaits between statements
 * (withTransaction, bulkImport) is another matter: any statement another request ran in the
 * meantime would join it, and be rolled back with it. The gate holds every other use of the
 * connection until such a transaction ends. The transaction's own calls do not pass through
 * it: they come through the halves it was handed (SqliteStore's `inside` halves).
 *
 * Not AsyncLocalStorage, which would tell the holder's calls apart by async context: on
 * Node.js 20 it turns on a promise hook for every promise of the process from the first
 * transaction on, which slowed every cached read (docs/performance.md).
 */
import type Database from 'better-sqlite3';
import { BatchQueue, type Waiting } from '../batch-queue.js';

export class WriteGate {
  #released: Promise<void> | null = null;

  /** Runs `fn` with the connection to itself, once no other holder has it. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.#released) await this.#released;
    let release!: () => void;
    this.#released = new Promise<void>((resolve) => (release = resolve));
    try {
      return await fn();
    } finally {
      this.#released = null;
      release();
    }
  }

  /** Null when the caller may use the connection now (the common case costs no promise); else when it may. */
  wait(): Promise<void> | null {
    if (!this.#released) return null;
    return this.#released.then(() => this.wait() ?? undefined);
  }
}

interface Job extends Waiting<unknown> {
  fn: () => Promise<unknown>;
}

/**
 * Group commit: the transactions asked for in one turn of the event loop, or while another
 * batch held the connection, run one after another in a single BEGIN IMMEDIATE … COMMIT. One
 * commit then writes the WAL frames, and the full-text indexes their new segment, for the whole
 * batch instead of once per publish. No savepoint separates the jobs: FTS5 flushes a segment at
 * every savepoint, which would undo half the gain (a statement journal opens one too, which is
 * why insertRow writes without triggers or RETURNING).
 *
 * Each caller sees what it would alone. A job reads what the jobs before it wrote, as serial
 * transactions would, and its promise settles only after COMMIT returned, so an acknowledged
 * write is as durable as with one transaction each. When a job throws, the batch rolls back:
 * that job is refused with its error (it failed after the same jobs a serial order would have
 * run before it), and the others run again, in order, in the next batch; the Store contract
 * allows running a transaction's function again. Each attempt settles at least one job.
 */
export class GroupCommit {
  readonly #batches: BatchQueue<Job>;

  constructor(
    private readonly db: Database.Database,
    gate: WriteGate,
    maxBatch: number,
    /** Told after each batch whether it committed (the event log announces then). */
    private readonly ended: (committed: boolean) => void,
  ) {
    // One batch at a time: the file has one writer.
    this.#batches = new BatchQueue({ maxBatch, inFlight: 1 }, (jobs) => gate.exclusive(() => this.#batch(jobs)));
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => this.#batches.add({ fn, resolve: resolve as (v: unknown) => void, reject }));
  }

  async #batch(jobs: Job[]): Promise<void> {
    const values: unknown[] = [];
    let committed = false;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      for (const job of jobs) {
        try {
          values.push(await job.fn());
        } catch (err) {
          job.reject(err);
          this.#batches.retry(jobs.filter((j) => j !== job));
          return;
        }
      }
      this.db.exec('COMMIT');
      committed = true;
    } catch (err) {
      // BEGIN (the write lock) or COMMIT failed: nothing of the batch landed.
      for (const job of jobs) job.reject(err);
    } finally {
      if (!committed && this.db.inTransaction) this.db.exec('ROLLBACK');
      this.ended(committed);
    }
    if (committed) jobs.forEach((job, i) => job.resolve(values[i]));
  }
}

/** Runs `fn` inside BEGIN IMMEDIATE … COMMIT with the gate held; ROLLBACK when it throws. */
export function runInTransaction<T>(db: Database.Database, gate: WriteGate, fn: () => Promise<T>): Promise<T> {
  return gate.exclusive(async () => {
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = await fn();
      db.exec('COMMIT');
      return result;
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw err;
    }
  });
}
