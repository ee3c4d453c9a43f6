/**
 * One SQLite connection serves every request of the process, and better-sqlite3 is
 * synchronous: a statement always runs alone. A transaction that awaits between statements
 * (withTransaction, bulkImport) is another matter: any statement another request ran in the
 * meantime would join it, and be rolled back with it. The gate holds every other use of the
 * connection until such a transaction ends; calls made inside it (same async context) pass.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';

export class WriteGate {
  readonly #context = new AsyncLocalStorage<object>();
  #holder: object | null = null;
  #released: Promise<void> | null = null;

  /** Runs `fn` with the connection to itself; nested calls from inside `fn` run at once. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.held()) return fn();
    while (this.#released) await this.#released;
    let release!: () => void;
    this.#released = new Promise<void>((resolve) => (release = resolve));
    const holder = {};
    this.#holder = holder;
    try {
      return await this.#context.run(holder, fn);
    } finally {
      this.#holder = null;
      this.#released = null;
      release();
    }
  }

  /** Null when the caller may use the connection now (the common case costs no promise); else when it may. */
  wait(): Promise<void> | null {
    if (!this.#released || this.held()) return null;
    return this.#released.then(() => this.wait() ?? undefined);
  }

  /** True when the caller is the holder (inside its transaction). */
  held(): boolean {
    return this.#holder !== null && this.#context.getStore() === this.#holder;
  }
}

interface Job {
  fn: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

interface Done {
  job: Job;
  value: unknown;
}

/**
 * Group commit: the transactions asked for in one turn of the event loop, or while another
 * batch held the connection, run one after another in a single BEGIN IMMEDIATE … COMMIT, each
 * inside its own savepoint. One commit then writes the WAL frames (and the two full-text
 * indexes' new segments) for the whole batch instead of once per publish.
 *
 * Each caller sees what it would alone: its writes land or roll back with its savepoint, it
 * reads what the jobs before it wrote, as serial transactions would, and its promise settles
 * only after COMMIT returned, so an acknowledged write is as durable as with one transaction
 * each. A failure that ends the whole transaction (SQLite rolls back by itself on a full disk,
 * say) rejects the jobs already run with that error; the ones not yet run go to the next batch.
 */
export class GroupCommit {
  #queue: Job[] = [];
  #scheduled = false;

  constructor(
    private readonly db: Database.Database,
    private readonly gate: WriteGate,
    private readonly maxBatch: number,
    /** Told after each batch whether it committed (the event log announces then). */
    private readonly ended: (committed: boolean) => void,
  ) {}

  run<T>(fn: () => Promise<T>): Promise<T> {
    // Called from inside a transaction (the gate is this caller's): a savepoint of it.
    if (this.gate.held()) return this.#savepoint(fn);
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#queue.length === 0) return;
    this.#scheduled = true;
    // setImmediate runs after the poll phase: requests read in the same turn join the batch.
    setImmediate(() => void this.gate.exclusive(() => this.#batch()));
  }

  async #batch(): Promise<void> {
    this.#scheduled = false;
    const jobs = this.#queue.splice(0, this.maxBatch);
    this.#schedule();
    const done: Done[] = [];
    let committed = false;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      for (let i = 0; i < jobs.length; i++) {
        const job = jobs[i]!;
        try {
          done.push({ job, value: await this.#savepoint(job.fn) });
        } catch (err) {
          if (this.db.inTransaction) {
            job.reject(err);
            continue;
          }
          this.#queue.unshift(...jobs.slice(i + 1));
          this.#schedule();
          throw err;
        }
      }
      this.db.exec('COMMIT');
      committed = true;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      // Settling twice is a no-op: this rejects the jobs run (rolled back with the batch) and the failed one.
      for (const job of jobs) if (!this.#queue.includes(job)) job.reject(err);
    } finally {
      this.ended(committed);
    }
    if (committed) for (const d of done) d.job.resolve(d.value);
  }

  async #savepoint<T>(fn: () => Promise<T>): Promise<T> {
    this.db.exec('SAVEPOINT job');
    try {
      const value = await fn();
      this.db.exec('RELEASE job');
      return value;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK TO job; RELEASE job');
      throw err;
    }
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
