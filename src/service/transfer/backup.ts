/**
 * Backup: everything the board holds, read in one snapshot while it serves, as NDJSON that
 * `restore` reads into an empty store of either engine. A header line, then the objects (as an
 * export writes them, words included), the rows of each backed-up table, the anonymous-voter
 * key, the event cursor, and an end line with the counts, which tells a whole file from a cut one.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { BoardLimits } from '../../domain/limits.js';
import { BACKED_UP_TABLES, type BackedUpTable } from '../../ports/backup.js';
import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store.js';
import { exportedObject, iso } from '../present.js';

export const BACKUP_FORMAT = 'agentboard-backup';
export const BACKUP_VERSION = 1;
/** The settings a backup carries: the key of the anonymous voters' hashes, which the votes hold. */
export const BACKED_UP_SETTINGS = ['voter_hash_secret'] as const;
const PAGE = 1000;

export type BackupCounts = { objects: number } & Record<BackedUpTable, number>;

export async function writeBackup(
  store: Store,
  out: Writable,
  o: { clock: Clock; limits: BoardLimits; baseUrl: string; onProgress?: (what: string, count: number) => void },
): Promise<BackupCounts> {
  const write = async (lines: readonly object[]) => {
    if (lines.length && !out.write(lines.map((l) => JSON.stringify(l)).join('\n') + '\n')) await once(out, 'drain');
  };
  return store.backups.snapshot(async (s) => {
    const now = o.clock.now();
    await write([{ format: BACKUP_FORMAT, version: BACKUP_VERSION, made_at: iso(now) }]);
    const counts = { objects: 0 } as BackupCounts;
    const live = { now, disputeMinContradictions: o.limits.disputeMinContradictions };
    const ctx = { baseUrl: o.baseUrl, live, expiringFraction: o.limits.expiringFraction };
    for (let after: string | null = null; ; ) {
      const page = await s.objects(after, PAGE, now);
      if (page.length === 0) break;
      await write(page.map((obj) => ({ kind: 'object', object: exportedObject(obj, ctx) })));
      counts.objects += page.length;
      after = page[page.length - 1]!.id;
      o.onProgress?.('objects', counts.objects);
    }
    for (const table of BACKED_UP_TABLES) {
      counts[table] = 0;
      for (;;) {
        const rows = await s.rows(table, counts[table], PAGE);
        if (rows.length === 0) break;
        await write(rows.map((row) => ({ kind: 'row', table, row })));
        counts[table] += rows.length;
        o.onProgress?.(table, counts[table]);
      }
    }
    for (const key of BACKED_UP_SETTINGS) {
      const value = await s.setting(key);
      if (value !== null) await write([{ kind: 'setting', key, value }]);
    }
    await write([{ kind: 'event_cursor', seq: await s.eventCursor() }, { kind: 'end', counts }]);
    return counts;
  });
}
