/**
 * Restore: a backup (backup.ts) read into an empty store of either engine. The whole file is
 * checked first (every line, and the end line's counts, so a cut file writes nothing); then the
 * objects go in through the import (all or nothing), then each table's rows, the settings and
 * the event cursor.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { BoardLimits } from '../../domain/limits.js';
import { BACKED_UP_TABLES, type BackedUpTable, type BackupRow } from '../../ports/backup.js';
import type { Store } from '../../ports/store.js';
import { toFieldIssues } from '../../schemas/parse.js';
import { BACKED_UP_SETTINGS, BACKUP_FORMAT, BACKUP_VERSION, type BackupCounts } from './backup.js';
import { importNdjson } from './ndjson-import.js';

const ROWS_PER_BATCH = 500;

const Header = z.object({ format: z.literal(BACKUP_FORMAT), version: z.literal(BACKUP_VERSION), made_at: z.string() });
const Line = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('object'), object: z.record(z.string(), z.unknown()) }),
  z.object({ kind: z.literal('row'), table: z.enum(BACKED_UP_TABLES), row: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])) }),
  z.object({ kind: z.literal('setting'), key: z.enum(BACKED_UP_SETTINGS), value: z.string() }),
  z.object({ kind: z.literal('event_cursor'), seq: z.number().int().min(0) }),
  z.object({ kind: z.literal('end'), counts: z.record(z.string(), z.number().int().min(0)) }),
]);
type Line = z.output<typeof Line>;

export class RestoreError extends Error {}

/** The file's lines after its header, each parsed and checked, with its number. */
async function* linesOf(path: string): AsyncGenerator<{ n: number; line: Line }> {
  const input = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let n = 0;
  for await (const text of input) {
    n++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new RestoreError(`line ${n}: not JSON`);
    }
    const parsed = n === 1 ? Header.safeParse(value) : Line.safeParse(value);
    if (!parsed.success) throw new RestoreError(`line ${n}: ${n === 1 ? `not an ${BACKUP_FORMAT} of version ${BACKUP_VERSION}: ` : ''}${toFieldIssues(parsed.error).map((i) => `${i.path} ${i.message}`).join('; ')}`);
    if (n > 1) yield { n, line: parsed.data as Line };
  }
}

/** Reads the whole file: its counts, which must match the end line's, the last line. */
async function check(path: string): Promise<BackupCounts> {
  const seen: Record<string, number> = { objects: 0 };
  let end: Record<string, number> | null = null;
  for await (const { n, line } of linesOf(path)) {
    if (end) throw new RestoreError(`line ${n}: nothing may follow the end line`);
    if (line.kind === 'object') seen.objects!++;
    else if (line.kind === 'row') seen[line.table] = (seen[line.table] ?? 0) + 1;
    else if (line.kind === 'end') end = line.counts;
  }
  if (!end) throw new RestoreError('the file ends before its end line: it is cut short');
  for (const what of ['objects', ...BACKED_UP_TABLES]) {
    if ((seen[what] ?? 0) !== (end[what] ?? 0)) throw new RestoreError(`the end line counts ${end[what] ?? 0} ${what}, the file holds ${seen[what] ?? 0}`);
  }
  return end as BackupCounts;
}

async function assertEmpty(store: Store): Promise<void> {
  const held = await store.backups.snapshot(async (s) => {
    if ((await s.objects(null, 1, Date.now())).length) return 'objects';
    for (const t of BACKED_UP_TABLES) if ((await s.rows(t, 0, 1)).length) return t;
    return null;
  });
  if (held) throw new RestoreError(`the database already holds ${held.replace(/_/g, ' ')}: restore into an empty one`);
}

export async function restoreBackup(store: Store, path: string, o: { now: number; limits: BoardLimits; onProgress?: (what: string, count: number) => void }): Promise<BackupCounts> {
  const counts = await check(path);
  await assertEmpty(store);
  const objects = Readable.from(
    (async function* () {
      for await (const { line } of linesOf(path)) if (line.kind === 'object') yield `${JSON.stringify(line.object)}\n`;
    })(),
  );
  await importNdjson(store, objects, { now: o.now, limits: o.limits, onProgress: (n) => o.onProgress?.('objects', n) });
  let batch: { table: BackedUpTable; rows: BackupRow[] } | null = null;
  const flush = async () => {
    if (batch?.rows.length) await store.backups.restoreRows(batch.table, batch.rows);
    batch = null;
  };
  for await (const { line } of linesOf(path)) {
    if (line.kind === 'row') {
      if (batch && (batch.table !== line.table || batch.rows.length >= ROWS_PER_BATCH)) await flush();
      (batch ??= { table: line.table, rows: [] }).rows.push(line.row);
      continue;
    }
    await flush();
    if (line.kind === 'setting') await store.backups.restoreSetting(line.key, line.value);
    if (line.kind === 'event_cursor') await store.backups.restoreEventCursor(line.seq);
  }
  await flush();
  return counts;
}
