/**
 * Puts a file in write-ahead-log mode. Two board processes started at once on a new file: one
 * failed at start with "database is locked" (seen once under a full test run), though the other
 * held no lock for longer than busy_timeout. Converting needs the file to itself, and SQLite does
 * not run the busy handler for every lock the conversion takes (others report the same failure
 * on concurrent opens; the path was not reproduced here). WAL is a property of the file: once
 * any process has converted it there is nothing to do and no lock to take, so the conversion is
 * tried again within the busy timeout, and a retry usually finds the work done.
 */
import type Database from 'better-sqlite3';
import { isBusy } from './sqlite-errors.js';

const RETRY_MS = 10;

export function useWal(db: Database.Database, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      if (db.pragma('journal_mode', { simple: true }) === 'wal') return;
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if (!isBusy(err) || Date.now() >= deadline) throw err;
      // Synchronous, as the store's constructor is: a short sleep without spinning.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
    }
  }
}
