// The thread that checkpoints a SQLite file's write-ahead log (checkpointer.ts starts it). Plain
// JavaScript, so the same file runs from src/ under the tests and from dist/ in production.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** @type {{ path: string; intervalMs: number; busyTimeoutMs: number }} */
const { path, intervalMs, busyTimeoutMs } = workerData;

/** @type {Database.Database | undefined} */
let db;
/** @type {NodeJS.Timeout | undefined} */
let timer;

/** Runs `fn`; on an error, stops and ends the thread with it as a plain Error, which reaches the owner whole. */
function guarded(/** @type {() => void} */ fn) {
  try {
    fn();
  } catch (err) {
    clearInterval(timer);
    if (db?.open) db.close();
    const e = /** @type {{ code?: string; message?: string }} */ (err);
    throw new Error(`${e.code ?? 'SQLITE_ERROR'}: ${e.message ?? String(err)}`);
  }
}

guarded(() => {
  const conn = new Database(path);
  db = conn;
  // Only opening may wait for a lock (a migration, another process's recovery): PASSIVE never does.
  conn.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // PASSIVE never waits for readers or writers: it copies what it can and returns at once.
  const checkpoint = conn.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  timer = setInterval(() => guarded(() => checkpoint.get()), intervalMs);
});

parentPort?.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  if (db?.open) db.close();
  parentPort?.close();
});
