/**
 * The event log half of the PostgreSQL store. An append takes a transaction-scoped advisory
 * lock before it draws its seq, so appends commit in seq order from every instance: a reader
 * that sees seq n has every event before it too. NOTIFY, sent on commit, wakes every instance
 * (on the channel every write other instances must hear of uses: pg-changes.ts). Inside a
 * transaction, appends wait in `pending` and the group commit writes a batch's together, last
 * (pg-group-commit.ts), so the lock is held only from then until COMMIT.
 */
import type { BoardEvent, NewEvent } from '../../domain/events.js';
import type { EventLog } from '../../ports/event-log.js';
import { PRUNED_THROUGH, toBoardEvent, type EventColumns } from '../event-rows.js';
import { all, limitSql, one, run, statement } from './pg-rows.js';
import type { PgRoot, PgSession, Statement } from './pg-session.js';

import { listenToChanges, NOTIFY_CHANGED } from './pg-changes.js';

interface EventRow extends EventColumns {
  topics: string[];
}

export class PgEvents implements EventLog {
  constructor(
    private readonly db: PgSession,
    /** `root` listens; a transaction's half has none. */
    private readonly root?: PgRoot,
    /** A transaction's appends, written by the group commit before COMMIT. */
    private readonly pending?: NewEvent[],
  ) {}

  async append(e: NewEvent): Promise<void> {
    if (this.pending) this.pending.push(e);
    else await appendEvents(this.db, [e]);
  }

  async after(seq: number, limit: number): Promise<BoardEvent[]> {
    const rows = await all<EventRow>(this.db, `SELECT seq, kind, object_id, type, topics, thread_id, at, space FROM events WHERE seq > @seq ORDER BY seq ${limitSql(limit)}`, { seq });
    return rows.map((r) => toBoardEvent(r, r.topics));
  }

  async bounds(): Promise<{ newest: number; prunedThrough: number }> {
    const r = await one<{ newest: number; pruned: number }>(
      this.db,
      `SELECT coalesce((SELECT max(seq) FROM events), 0) AS newest, coalesce((SELECT value::bigint FROM settings WHERE key = '${PRUNED_THROUGH}'), 0) AS pruned`,
    );
    return { newest: Math.max(r!.newest, r!.pruned), prunedThrough: r!.pruned };
  }

  prune(before: number, keep: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      const last = await one<{ seq: number | null }>(
        tx,
        'SELECT max(seq) AS seq FROM events WHERE at < @before AND seq <= coalesce((SELECT seq FROM events ORDER BY seq DESC LIMIT 1 OFFSET @keep), 0)',
        { before, keep: Math.max(1, keep) },
      );
      if (last?.seq == null) return 0;
      await run(tx, `INSERT INTO settings (key, value) VALUES ('${PRUNED_THROUGH}', @seq) ON CONFLICT (key) DO UPDATE SET value = greatest(settings.value::bigint, excluded.value::bigint)::text`, { seq: String(last.seq) });
      return run(tx, 'DELETE FROM events WHERE seq <= @seq', { seq: last.seq });
    });
  }

  async listen(onAppend: () => void): Promise<{ stop(): Promise<void> }> {
    if (!this.root) throw new Error('a transaction cannot listen');
    // The hub's poll covers what a lost connection missed.
    return listenToChanges(this.root, { onPayload: onAppend });
  }
}

/**
 * Taken before an event's seq is drawn, and held until COMMIT: appends from every instance
 * commit in seq order.
 */
export const EVENTS_LOCK = `pg_advisory_xact_lock(hashtextextended('agentboard-events:' || current_schema(), 0))`;

/** The events table's columns, and their values from the NewEvent `x` (jsonb). */
export const EVENT_COLUMNS = 'kind, object_id, type, topics, thread_id, at, space';
export const eventValues = (x: string) =>
  `${x}->>'kind', ${x}->>'objectId', ${x}->>'type', ARRAY(SELECT jsonb_array_elements_text(${x}->'topics')), ${x}->>'threadId', (${x}->>'at')::bigint, coalesce(${x}->>'space', '')`;

/** The statement that appends `events` in their order, under the lock that orders appends from every instance. */
export function appendEventsStatement(events: readonly NewEvent[]): Statement {
  // One statement: the lock is taken (the CTE is read) before the rows, and their seqs, are made.
  return statement(
    `WITH l AS (SELECT ${EVENTS_LOCK}),
     e AS (INSERT INTO events (${EVENT_COLUMNS})
       SELECT ${eventValues('x')}
       FROM l, jsonb_array_elements(@events::jsonb) WITH ORDINALITY AS j(x, n) ORDER BY n)
     SELECT ${NOTIFY_CHANGED}`,
    { events: JSON.stringify(events) },
  );
}

/** Appends `events` in their order (appendEventsStatement). */
export async function appendEvents(db: PgSession, events: readonly NewEvent[]): Promise<void> {
  const { text, params } = appendEventsStatement(events);
  await db.query(text, params);
}
