/**
 * Backups on PostgreSQL. A snapshot is one REPEATABLE READ, READ ONLY transaction: every read
 * sees the database as of its first statement, while other connections go on committing.
 */
import type { BackedUpTable, BackupRow, Backups, Snapshot } from '../../ports/backup.js';
import { neutralRow, rowValues, TABLES } from '../backup-tables.js';
import { PRUNED_THROUGH } from '../event-rows.js';
import { all, limitSql, one, run, SELECT_OBJECT, toObject, type ObjectRow, type Params } from './pg-rows.js';
import type { PgSession } from './pg-session.js';

/** Rows restored per statement. */
const ROWS_PER_INSERT = 500;

function snapshotOver(tx: PgSession): Snapshot {
  return {
    async objects(after, limit, now) {
      const rows = await all<ObjectRow>(tx, `SELECT ${SELECT_OBJECT} FROM objects o WHERE o.id > @after ORDER BY o.id ${limitSql(limit)}`, { after: after ?? '', now });
      return rows.map(toObject);
    },
    async rows(table, offset, limit) {
      const shape = TABLES[table];
      const rows = await all<Record<string, unknown>>(tx, `SELECT ${shape.columns.join(', ')} FROM ${table} ORDER BY ${shape.orderBy} ${limitSql(limit)} OFFSET ${Math.max(0, Math.trunc(offset))}`);
      return rows.map((r) => neutralRow(table, r));
    },
    async setting(key) {
      return (await one<{ value: string }>(tx, 'SELECT value FROM settings WHERE key = @key', { key }))?.value ?? null;
    },
    async eventCursor() {
      const r = await one<{ newest: number; pruned: number }>(
        tx,
        `SELECT coalesce((SELECT max(seq) FROM events), 0)::float8 AS newest, coalesce((SELECT value::bigint FROM settings WHERE key = '${PRUNED_THROUGH}'), 0)::float8 AS pruned`,
      );
      return Math.max(r!.newest, r!.pruned);
    },
  };
}

export class PgBackups implements Backups {
  constructor(private readonly db: PgSession) {}

  snapshot<T>(read: (s: Snapshot) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      await tx.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      return read(snapshotOver(tx));
    });
  }

  restoreRows(table: BackedUpTable, rows: readonly BackupRow[]): Promise<void> {
    const { columns, identity } = TABLES[table];
    return this.db.transaction(async (tx) => {
      for (let from = 0; from < rows.length; from += ROWS_PER_INSERT) {
        const params: Params = {};
        const tuples = rows.slice(from, from + ROWS_PER_INSERT).map((row, i) => {
          const values = rowValues(table, row, (b) => b);
          return `(${values.map((v, j) => ((params[`r${i}c${j}`] = v as Params[string]), `@r${i}c${j}`)).join(', ')})`;
        });
        await run(tx, `INSERT INTO ${table} (${columns.join(', ')})${identity ? ' OVERRIDING SYSTEM VALUE' : ''} VALUES ${tuples.join(', ')}`, params);
      }
      // An identity column numbers on from the restored rows.
      if (identity && rows.length) await run(tx, `SELECT setval(pg_get_serial_sequence('${table}', '${identity}'), (SELECT max(${identity}) FROM ${table}))`);
    });
  }

  async restoreSetting(key: string, value: string): Promise<void> {
    await run(this.db, 'INSERT INTO settings (key, value) VALUES (@key, @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value', { key, value });
  }

  restoreEventCursor(seq: number): Promise<void> {
    return this.db.transaction(async (tx) => {
      await run(tx, `INSERT INTO settings (key, value) VALUES ('${PRUNED_THROUGH}', @seq) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, { seq: String(seq) });
      // New events come after `seq`.
      if (seq > 0) await run(tx, `SELECT setval(pg_get_serial_sequence('events', 'seq'), greatest(@seq::bigint, (SELECT coalesce(max(seq), 1) FROM events)))`, { seq });
    });
  }
}
