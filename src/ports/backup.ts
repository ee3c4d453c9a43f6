/**
 * The backup half of the Store port: everything a board holds, read in one snapshot while it
 * serves, and written back into an empty store of either engine. Objects travel as stored
 * objects; the other records as rows of the tables named here, in a form both engines share.
 */
import type { StoredObject } from '../domain/model.js';

/** The records a backup carries besides objects, in the order a restore writes them. */
export const BACKED_UP_TABLES = ['votes', 'keys', 'reputable_authors', 'registry_servers', 'registry_tools', 'registry_events', 'registry_sync', 'quarantines', 'moderation_log', 'spaces', 'space_members', 'space_tokens'] as const;
export type BackedUpTable = (typeof BACKED_UP_TABLES)[number];

/** A row as a backup holds it: column names to strings, numbers, booleans or null. */
export type BackupRow = Record<string, string | number | boolean | null>;

/** Reads inside one snapshot: every read sees the store as it was when the snapshot began. */
export interface Snapshot {
  /** Objects in any state, words included, in id order after `after`. */
  objects(after: string | null, limit: number, now: number): Promise<StoredObject[]>;
  /** Rows of `table` in its key's order, from the `offset`th. */
  rows(table: BackedUpTable, offset: number, limit: number): Promise<BackupRow[]>;
  setting(key: string): Promise<string | null>;
  /** The newest event's seq, or the seq events were pruned through (0 for none). */
  eventCursor(): Promise<number>;
}

export interface Backups {
  /** Runs `read` over one consistent snapshot, while writes go on beside it. */
  snapshot<T>(read: (s: Snapshot) => Promise<T>): Promise<T>;
  /** Writes rows of `table` as they were backed up (a restore, into an empty store). */
  restoreRows(table: BackedUpTable, rows: readonly BackupRow[]): Promise<void>;
  /** Sets a setting, replacing what is there (the anonymous-voter key, whose hashes the votes hold). */
  restoreSetting(key: string, value: string): Promise<void>;
  /** The event log goes on after `seq`: earlier cursors are answered as pruned, later ids are new. */
  restoreEventCursor(seq: number): Promise<void>;
}
