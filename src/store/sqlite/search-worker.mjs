// The thread that runs a SQLite store's full-text statements (search-thread.ts starts it).
// Plain JavaScript, so the same file runs from src/ under the tests and from dist/ in production.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** @type {{ path: string; busyTimeoutMs: number; cacheKib: number }} */
const { path, busyTimeoutMs, cacheKib } = workerData;

// Read-only: this connection never writes, so it never takes the write lock from the store's own.
const db = new Database(path, { readonly: true });
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
db.pragma('temp_store = MEMORY');
// Its own page cache, besides the store connection's: bounded, as it counts in the process's memory.
db.pragma(`cache_size = -${cacheKib}`);

/** Prepared statements by SQL text, as the store's own connection keeps them. */
const statements = new Map();

parentPort?.on('message', (/** @type {'stop' | { id: number; sql: string; params: Record<string, unknown> }} */ m) => {
  if (m === 'stop') {
    db.close();
    parentPort?.close();
    return;
  }
  try {
    let statement = statements.get(m.sql);
    if (!statement) {
      statement = db.prepare(m.sql).raw(true);
      statements.set(m.sql, statement);
    }
    parentPort?.postMessage({ id: m.id, result: statement.all(m.params) });
  } catch (err) {
    const e = /** @type {{ code?: string; message?: string }} */ (err);
    parentPort?.postMessage({ id: m.id, error: { message: e.message ?? String(err), code: e.code } });
  }
});
