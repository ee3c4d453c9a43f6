/**
 * The moderation half of the PostgreSQL store, mirroring sqlite-moderation.ts. A batch is a few
 * statements whatever its size: the flags move in one, the targets' counts in another, and the
 * standing the domain derives from what they leave in a third.
 */
import type { ObjectType } from '../../domain/model.js';
import { liveUntil } from '../../domain/state.js';
import type { AuditEntry, ModerationStore, QuarantineRecord, QuarantineSource, Touched } from '../../ports/moderation-store.js';
import { activeOfSql, castSql, sourceParams, toQuarantine as toRecord, wroteSql, type QuarantineRow } from '../quarantine-rows.js';
import { STANDING_COLUMNS, standingFacts, type StandingColumns } from '../object-columns.js';
import { objectCoveredSql, voteCoveredSql } from '../sql-fragments.js';
import { all, limitSql, one, run } from './pg-rows.js';
import type { PgSession } from './pg-session.js';

type Changed = StandingColumns<boolean> & { id: string; type: string; topics: string[]; parent_id: string | null; author_id: string | null; space: string; live_until: number };
const CHANGED_COLUMNS = `o.id, o.type, o.topics, o.parent_id, o.author_id, o.space, o.live_until, ${STANDING_COLUMNS.split(', ').map((c) => `o.${c}`).join(', ')}`;

export class PgModeration implements ModerationStore {
  constructor(private readonly db: PgSession) {}

  async open(q: { id: string; source: QuarantineSource; reason: string; at: number }): Promise<{ record: QuarantineRecord; created: boolean }> {
    const inserted = await one<QuarantineRow>(
      this.db,
      'INSERT INTO quarantines (id, keyid, domain, reason, created_at) VALUES (@id, @keyid, @domain, @reason, @at) ON CONFLICT DO NOTHING RETURNING *',
      { id: q.id, keyid: q.source.keyid, domain: q.source.domain, reason: q.reason, at: q.at },
    );
    if (inserted) {
      // Keys seen verified for the domain before votes kept their domain: their votes are the domain's too.
      if (q.source.domain !== null) {
        await run(this.db, 'UPDATE votes SET voter_domain = @domain WHERE voter_domain IS NULL AND voter_id IN (SELECT author_id FROM objects WHERE author_domain = @domain)', { domain: q.source.domain });
      }
      return { record: toRecord(inserted), created: true };
    }
    const active = await one<QuarantineRow>(this.db, activeOfSql(q.source), { v: q.source.keyid ?? q.source.domain });
    return { record: toRecord(active!), created: false };
  }

  async get(id: string): Promise<QuarantineRecord | null> {
    const row = await one<QuarantineRow>(this.db, 'SELECT * FROM quarantines WHERE id = @id', { id });
    return row ? toRecord(row) : null;
  }

  async markLifted(id: string, at: number): Promise<boolean> {
    return (await one(this.db, 'UPDATE quarantines SET lifted_at = @at WHERE id = @id AND lifted_at IS NULL RETURNING 1', { id, at })) !== undefined;
  }

  async countAffected(id: string, n: number): Promise<void> {
    await run(this.db, 'UPDATE quarantines SET affected = affected + @n WHERE id = @id', { id, n });
  }

  async isQuarantined(keyid: string, domain: string | null): Promise<boolean> {
    return (await one(this.db, 'SELECT 1 FROM quarantines WHERE lifted_at IS NULL AND (keyid = @keyid OR domain = @domain)', { keyid, domain })) !== undefined;
  }

  async settleObjects(source: QuarantineSource, limit: number, minContradictions: number): Promise<Touched[]> {
    const rows = await all<Changed>(
      this.db,
      `WITH t AS (SELECT o.id FROM objects o WHERE ${wroteSql(source)} AND o.quarantined <> ${objectCoveredSql('o')} ORDER BY o.seq ${limitSql(limit)} FOR UPDATE)
       UPDATE objects o SET quarantined = NOT o.quarantined FROM t WHERE o.id = t.id RETURNING ${CHANGED_COLUMNS}`,
      sourceParams(source),
    );
    await this.#restate(rows, minContradictions);
    return rows.map(toTouched);
  }

  async settleVotes(source: QuarantineSource, limit: number, minContradictions: number): Promise<{ targets: Touched[]; votes: number }> {
    const rows = await all<Changed & { moved: number }>(
      this.db,
      `WITH t AS (SELECT v.object_id, v.voter_id FROM votes v WHERE ${castSql(source)} AND v.quarantined <> ${voteCoveredSql('v')} ${limitSql(limit)} FOR UPDATE),
       f AS (UPDATE votes v SET quarantined = NOT v.quarantined FROM t WHERE v.object_id = t.object_id AND v.voter_id = t.voter_id RETURNING v.object_id, v.kind, v.quarantined),
       d AS (SELECT object_id, count(*)::int AS moved,
               sum(CASE WHEN kind = 'verify' THEN CASE WHEN quarantined THEN -1 ELSE 1 END ELSE 0 END)::int AS dv,
               sum(CASE WHEN kind = 'contradict' THEN CASE WHEN quarantined THEN -1 ELSE 1 END ELSE 0 END)::int AS dc
             FROM f GROUP BY object_id)
       UPDATE objects o SET verification_count = o.verification_count + d.dv, contradiction_count = o.contradiction_count + d.dc
       FROM d WHERE o.id = d.object_id RETURNING ${CHANGED_COLUMNS}, d.moved`,
      sourceParams(source),
    );
    await this.#restate(rows, minContradictions);
    return { targets: rows.map(toTouched), votes: rows.reduce((n, r) => n + r.moved, 0) };
  }

  /** Stores the standing the domain derives from each row's facts, where it moved. */
  async #restate(rows: readonly Changed[], minContradictions: number): Promise<void> {
    const moved = rows.map((r) => ({ id: r.id, until: liveUntil(standingFacts(r, Boolean), minContradictions), was: r.live_until })).filter((r) => r.until !== r.was);
    if (moved.length === 0) return;
    await run(
      this.db,
      `WITH c AS (SELECT * FROM unnest(@ids::text[], @untils::bigint[]) AS c(id, until)),
       o AS (UPDATE objects o SET live_until = c.until FROM c WHERE o.id = c.id)
       UPDATE object_topics t SET live_until = c.until FROM c WHERE t.object_id = c.id`,
      { ids: moved.map((m) => m.id), untils: moved.map((m) => m.until) },
    );
  }

  async log(e: Omit<AuditEntry, 'seq'>): Promise<void> {
    await run(this.db, 'INSERT INTO moderation_log (action, target, reason, affected, at) VALUES (@action, @target, @reason, @affected, @at)', { ...e });
  }

  async audit(q: { before?: number; limit: number }): Promise<AuditEntry[]> {
    return all<AuditEntry>(
      this.db,
      `SELECT seq, action, target, reason, affected, at FROM moderation_log ${q.before !== undefined ? 'WHERE seq < @before' : ''} ORDER BY seq DESC ${limitSql(q.limit)}`,
      q.before !== undefined ? { before: q.before } : {},
    );
  }

  /** Waits until no transaction that was running when called still runs: what they wrote is then visible. */
  async quiesce(maxMs: number): Promise<void> {
    const { xmax } = (await one<{ xmax: string }>(this.db, 'SELECT txid_snapshot_xmax(txid_current_snapshot())::text AS xmax'))!;
    for (const until = Date.now() + maxMs; Date.now() < until; ) {
      const { done } = (await one<{ done: boolean }>(this.db, 'SELECT txid_snapshot_xmin(txid_current_snapshot()) >= @xmax::bigint AS done', { xmax }))!;
      if (done) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

const toTouched = (r: Changed): Touched => ({ id: r.id, type: r.type as ObjectType, topics: r.topics, parentId: r.parent_id, authorId: r.author_id, space: r.space || null });
