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
    if (this.#inside()) return fn();
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
    if (!this.#released || this.#inside()) return null;
    return this.#released.then(() => this.wait() ?? undefined);
  }

  #inside(): boolean {
    return this.#holder !== null && this.#context.getStore() === this.#holder;
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
