/**
 * Backups on SQLite. A snapshot reads through a read-only connection of its own inside one
 * transaction: in WAL mode it sees the file as of its first read, while the store's connection
 * goes on committing. (A `:memory:` database has no second connection: it is read as it goes.)
 */
import Database from 'better-sqlite3';
import type { BackedUpTable, BackupRow, Backups, Snapshot } from '../../ports/backup.js';
import { neutralRow, rowValues, TABLES } from '../backup-tables.js';
import { PRUNED_THROUGH } from '../event-rows.js';
import { limitSql, SELECT_OBJECT, toObject, type ObjectRow, type Sql } from './sqlite-rows.js';

function snapshotOver(db: Database.Database): Snapshot {
  const statements = new Map<string, Database.Statement>();
  const sql: Sql = (text) => statements.get(text) ?? statements.set(text, db.prepare(text)).get(text)!;
  return {
    async objects(after, limit, now) {
      const rows = sql(`SELECT ${SELECT_OBJECT} FROM objects o WHERE o.id > @after ORDER BY o.id ${limitSql(limit)}`).all({ after: after ?? '', now }) as ObjectRow[];
      return rows.map(toObject);
    },
    async rows(table, offset, limit) {
      const shape = TABLES[table];
      const rows = sql(`SELECT ${shape.columns.join(', ')} FROM ${table} ORDER BY ${shape.orderBy} ${limitSql(limit)} OFFSET ${Math.max(0, Math.trunc(offset))}`).all() as Record<string, unknown>[];
      return rows.map((r) => neutralRow(table, r));
    },
    async setting(key) {
      return (sql('SELECT value FROM settings WHERE key = ?').pluck().get(key) as string | undefined) ?? null;
    },
    async eventCursor() {
      const r = sql(`SELECT coalesce((SELECT max(seq) FROM events), 0) AS newest, coalesce((SELECT CAST(value AS INTEGER) FROM settings WHERE key = '${PRUNED_THROUGH}'), 0) AS pruned`).get() as { newest: number; pruned: number };
      return Math.max(r.newest, r.pruned);
    },
  };
}

export class SqliteBackups implements Backups {
  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
    private readonly sql: Sql,
  ) {}

  async snapshot<T>(read: (s: Snapshot) => Promise<T>): Promise<T> {
    if (this.path === ':memory:') return read(snapshotOver(this.db));
    const own = new Database(this.path, { readonly: true, fileMustExist: true });
    try {
      own.pragma('busy_timeout = 5000');
      own.exec('BEGIN');
      // The snapshot starts at the transaction's first read.
      own.prepare('SELECT count(*) FROM objects').get();
      return await read(snapshotOver(own));
    } finally {
      if (own.inTransaction) own.exec('COMMIT');
      own.close();
    }
  }

  async restoreRows(table: BackedUpTable, rows: readonly BackupRow[]): Promise<void> {
    const { columns } = TABLES[table];
    const insert = this.sql(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    this.db.transaction(() => {
      for (const row of rows) insert.run(...rowValues(table, row, (b) => (b ? 1 : 0)));
    })();
  }

  async restoreSetting(key: string, value: string): Promise<void> {
    this.sql('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  async restoreEventCursor(seq: number): Promise<void> {
    this.db.transaction(() => {
      this.sql(`INSERT INTO settings (key, value) VALUES ('${PRUNED_THROUGH}', @seq) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run({ seq: String(seq) });
      // AUTOINCREMENT numbers from sqlite_sequence: new events come after `seq`.
      const moved = this.sql(`UPDATE sqlite_sequence SET seq = max(seq, @seq) WHERE name = 'events'`).run({ seq }).changes;
      if (moved === 0) this.sql(`INSERT INTO sqlite_sequence (name, seq) VALUES ('events', @seq)`).run({ seq });
    })();
  }
}
