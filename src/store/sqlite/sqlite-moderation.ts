/** The moderation half of the SQLite store: quarantines, the flags they derive, and the audit log. */
import type { AuditEntry, ModerationStore, QuarantineRecord, QuarantineSource, Touched } from '../../ports/moderation-store.js';
import { activeOfSql, castSql, sourceParams, toQuarantine as toRecord, wroteSql, type QuarantineRow } from '../quarantine-rows.js';
import type { ObjectType } from '../../domain/model.js';
import { objectCoveredSql, voteCoveredSql } from '../sql-fragments.js';
import { limitSql, writeFacts, type Sql } from './sqlite-rows.js';

type TouchedRow = { id: string; type: string; topics: string; parent_id: string | null; author_id: string | null; space: string };
const toTouched = (r: TouchedRow): Touched => ({ id: r.id, type: r.type as ObjectType, topics: JSON.parse(r.topics) as string[], parentId: r.parent_id, authorId: r.author_id, space: r.space || null });

export class SqliteModeration implements ModerationStore {
  constructor(private readonly sql: Sql) {}

  async open(q: { id: string; source: QuarantineSource; reason: string; at: number }): Promise<{ record: QuarantineRecord; created: boolean }> {
    const inserted = this.sql('INSERT OR IGNORE INTO quarantines (id, keyid, domain, reason, created_at) VALUES (?, ?, ?, ?, ?)').run(q.id, q.source.keyid, q.source.domain, q.reason, q.at);
    if (inserted.changes === 1) {
      // Keys seen verified for the domain before votes kept their domain: their votes are the domain's too.
      if (q.source.domain !== null) {
        this.sql('UPDATE votes SET voter_domain = @domain WHERE voter_domain IS NULL AND voter_id IN (SELECT author_id FROM objects WHERE author_domain = @domain)').run({ domain: q.source.domain });
      }
      return { record: (await this.get(q.id))!, created: true };
    }
    const active = this.sql(activeOfSql(q.source)).get({ v: q.source.keyid ?? q.source.domain }) as QuarantineRow;
    return { record: toRecord(active), created: false };
  }

  async get(id: string): Promise<QuarantineRecord | null> {
    const row = this.sql('SELECT * FROM quarantines WHERE id = ?').get(id) as QuarantineRow | undefined;
    return row ? toRecord(row) : null;
  }

  async markLifted(id: string, at: number): Promise<boolean> {
    return this.sql('UPDATE quarantines SET lifted_at = ? WHERE id = ? AND lifted_at IS NULL').run(at, id).changes === 1;
  }

  async countAffected(id: string, n: number): Promise<void> {
    this.sql('UPDATE quarantines SET affected = affected + ? WHERE id = ?').run(n, id);
  }

  async isQuarantined(keyid: string, domain: string | null): Promise<boolean> {
    return this.sql('SELECT 1 FROM quarantines WHERE lifted_at IS NULL AND (keyid = ? OR domain = ?)').get(keyid, domain) !== undefined;
  }

  async settleObjects(source: QuarantineSource, limit: number, minContradictions: number): Promise<Touched[]> {
    const rows = this.sql(
      `SELECT o.id, o.type, o.topics, o.parent_id, o.author_id, o.space, ${objectCoveredSql('o')} AS covered FROM objects o
       WHERE ${wroteSql(source)} AND o.quarantined <> ${objectCoveredSql('o')} ORDER BY o.seq ${limitSql(limit)}`,
    ).all(sourceParams(source)) as (TouchedRow & { covered: number })[];
    for (const r of rows) writeFacts(this.sql, r.id, 'quarantined = @covered', { covered: r.covered }, minContradictions);
    return rows.map(toTouched);
  }

  async settleVotes(source: QuarantineSource, limit: number, minContradictions: number): Promise<{ targets: Touched[]; votes: number }> {
    const votes = this.sql(
      `SELECT v.object_id, v.voter_id, v.kind, ${voteCoveredSql('v')} AS covered FROM votes v
       WHERE ${castSql(source)} AND v.quarantined <> ${voteCoveredSql('v')} ${limitSql(limit)}`,
    ).all(sourceParams(source)) as { object_id: string; voter_id: string; kind: string; covered: number }[];
    const deltas = new Map<string, { dv: number; dc: number }>();
    for (const v of votes) {
      this.sql('UPDATE votes SET quarantined = ? WHERE object_id = ? AND voter_id = ?').run(v.covered, v.object_id, v.voter_id);
      // A vote taken out counts -1 on its target, one given back +1.
      const sign = v.covered ? -1 : 1;
      const d = deltas.get(v.object_id) ?? { dv: 0, dc: 0 };
      if (v.kind === 'verify') d.dv += sign;
      else d.dc += sign;
      deltas.set(v.object_id, d);
    }
    const targets: Touched[] = [];
    for (const [id, d] of deltas) {
      writeFacts(this.sql, id, 'verification_count = verification_count + @dv, contradiction_count = contradiction_count + @dc', d, minContradictions);
      targets.push(toTouched(this.sql('SELECT id, type, topics, parent_id, author_id, space FROM objects WHERE id = ?').get(id) as TouchedRow));
    }
    return { targets, votes: votes.length };
  }

  async log(e: Omit<AuditEntry, 'seq'>): Promise<void> {
    this.sql('INSERT INTO moderation_log (action, target, reason, affected, at) VALUES (@action, @target, @reason, @affected, @at)').run(e);
  }

  async audit(q: { before?: number; limit: number }): Promise<AuditEntry[]> {
    return this.sql(`SELECT seq, action, target, reason, affected, at FROM moderation_log ${q.before !== undefined ? 'WHERE seq < @before' : ''} ORDER BY seq DESC ${limitSql(q.limit)}`).all(
      q.before !== undefined ? { before: q.before } : {},
    ) as AuditEntry[];
  }

  /** One writer at a time: a write that began before the quarantine has committed already. */
  async quiesce(_maxMs: number): Promise<void> {}
}
