/**
 * The event log half of the SQLite store. Writes are serialized by the file's write lock, so
 * seq order (AUTOINCREMENT, never reused) is commit order. Listeners are told after the
 * transaction that appended commits (the store calls `committed`); one process per file.
 */
import { EventEmitter } from 'node:events';
import type Database from 'better-sqlite3';
import type { BoardEvent, NewEvent } from '../../domain/events.js';
import type { EventLog } from '../../ports/event-log.js';
import { PRUNED_THROUGH, toBoardEvent, type EventColumns } from '../event-rows.js';
import { limitSql, type Sql } from './sqlite-rows.js';

/** Appends `e` on the connection `sql` prepares for: append(), and a publish in its transaction (sqlite-publishes.ts). */
export function appendEvent(sql: Sql, e: NewEvent): void {
  sql('INSERT INTO events (kind, object_id, type, topics, thread_id, at, space) VALUES (?, ?, ?, ?, ?, ?, ?)').run(e.kind, e.objectId, e.type, JSON.stringify(e.topics), e.threadId, e.at, e.space ?? '');
}

interface EventRow extends EventColumns {
  topics: string;
}

export class SqliteEvents implements EventLog {
  readonly #heard = new EventEmitter();
  #unannounced = false;

  constructor(
    private readonly db: Database.Database,
    private readonly sql: Sql,
  ) {}

  async append(e: NewEvent): Promise<void> {
    appendEvent(this.sql, e);
    if (this.db.inTransaction) this.#unannounced = true;
    else this.#heard.emit('append');
  }

  /** For an event appended inside the open transaction without append() (sqlite-publishes.ts): announced if it commits. */
  announceAtCommit(): void {
    this.#unannounced = true;
  }

  /** Called by the store when a transaction ends: listeners hear of what it appended, if it committed. */
  committed(ok: boolean): void {
    if (this.#unannounced && ok) this.#heard.emit('append');
    this.#unannounced = false;
  }

  async after(seq: number, limit: number): Promise<BoardEvent[]> {
    const rows = this.sql(`SELECT * FROM events WHERE seq > ? ORDER BY seq ${limitSql(limit)}`).all(seq) as EventRow[];
    return rows.map((r) => toBoardEvent(r, JSON.parse(r.topics) as string[]));
  }

  async bounds(): Promise<{ newest: number; prunedThrough: number }> {
    const r = this.sql(`SELECT coalesce((SELECT max(seq) FROM events), 0) AS newest, coalesce((SELECT CAST(value AS INTEGER) FROM settings WHERE key = '${PRUNED_THROUGH}'), 0) AS pruned`).get() as {
      newest: number;
      pruned: number;
    };
    return { newest: Math.max(r.newest, r.pruned), prunedThrough: r.pruned };
  }

  async prune(before: number, keep: number): Promise<number> {
    return this.db
      .transaction(() => {
        const last = this.sql(`SELECT max(seq) AS seq FROM events WHERE at < @before AND seq <= coalesce((SELECT seq FROM events ORDER BY seq DESC LIMIT 1 OFFSET @keep), 0)`).get({
          before,
          keep: Math.max(1, keep),
        }) as { seq: number | null };
        if (last.seq === null) return 0;
        this.sql(`INSERT INTO settings (key, value) VALUES ('${PRUNED_THROUGH}', @seq) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run({ seq: String(last.seq) });
        return this.sql('DELETE FROM events WHERE seq <= ?').run(last.seq).changes;
      })
      .immediate();
  }

  async listen(onAppend: () => void): Promise<{ stop(): Promise<void> }> {
    this.#heard.on('append', onAppend);
    return { stop: async () => void this.#heard.off('append', onAppend) };
  }
}
