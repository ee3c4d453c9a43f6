/** The votes half of the SQLite store: a vote and the counts it moves, in one write transaction. */
import type Database from 'better-sqlite3';
import type { LiveCriteria, VoteKind } from '../../domain/model.js';
import { uncounted, voteEffect } from '../../domain/votes.js';
import type { VoteInput, VoteOutcome, VoteStore } from '../../ports/vote-store.js';
import { getObjectRow, inWriteTransaction, limitSql, writeFacts, type Sql } from './sqlite-rows.js';
import { toVote, type VoteRow } from '../vote-rows.js';

export class SqliteVotes implements VoteStore {
  constructor(
    private readonly db: Database.Database,
    private readonly sql: Sql,
  ) {}

  async cast(v: VoteInput, live: LiveCriteria): Promise<VoteOutcome | null> {
    return inWriteTransaction(this.db, (): VoteOutcome | null => {
      const exists = this.sql('SELECT 1 FROM objects WHERE id = ?').get(v.objectId);
      if (!exists) return null;
      const prior = this.sql('SELECT kind, first_verified_at IS NOT NULL AS verified, correction_id, quarantined FROM votes WHERE object_id = ? AND voter_id = ?').get(v.objectId, v.voterId) as
        | { kind: VoteKind; verified: number; correction_id: string | null; quarantined: number }
        | undefined;
      const effect = uncounted(
        voteEffect(prior ? { kind: prior.kind, verifiedBefore: prior.verified === 1, correctionId: prior.correction_id } : null, v.kind, v.correctionId ?? null),
        prior?.quarantined === 1,
      );
      if (!effect.changed) return { changed: false, firstVerification: false, object: getObjectRow(this.sql, v.objectId, live)! };
      this.sql(
        `INSERT INTO votes (object_id, voter_id, kind, note, evidence_url, created_at, updated_at, first_verified_at, correction_id, voter_domain)
         VALUES (@objectId, @voterId, @kind, @note, @evidenceUrl, @now, @now, @firstVerifiedAt, @correctionId, @voterDomain)
         ON CONFLICT (object_id, voter_id) DO UPDATE SET kind = excluded.kind, note = excluded.note,
           evidence_url = excluded.evidence_url, updated_at = excluded.updated_at,
           first_verified_at = coalesce(votes.first_verified_at, excluded.first_verified_at), correction_id = excluded.correction_id, voter_domain = excluded.voter_domain`,
      ).run({ ...v, now: live.now, firstVerifiedAt: effect.firstVerification ? live.now : null, correctionId: effect.correctionId, voterDomain: v.voterDomain ?? null });
      writeFacts(
        this.sql,
        v.objectId,
        `verification_count = verification_count + @dv, contradiction_count = contradiction_count + @dc,
         last_verified_at = CASE WHEN @verified = 1 THEN @now ELSE last_verified_at END`,
        { dv: effect.verifications, dc: effect.contradictions, verified: effect.verified ? 1 : 0, now: live.now },
        live.disputeMinContradictions,
      );
      return { changed: true, firstVerification: effect.firstVerification, object: getObjectRow(this.sql, v.objectId, live)! };
    });
  }

  async list(objectId: string, q: { limit: number; after?: { updatedAt: number; voterId: string } }) {
    const rows = this.sql(
      `SELECT kind, note, evidence_url, correction_id, voter_id, created_at, updated_at FROM votes
       WHERE object_id = @objectId ${q.after ? 'AND (updated_at, voter_id) < (@updatedAt, @voterId)' : ''}
       ORDER BY updated_at DESC, voter_id DESC ${limitSql(q.limit)}`,
    ).all({ objectId, ...(q.after ?? {}) }) as VoteRow[];
    return rows.map(toVote);
  }
}
