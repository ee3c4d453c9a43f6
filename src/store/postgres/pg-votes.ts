/**
 * The votes half of the PostgreSQL store. The object's row is locked first, so one object's
 * votes are applied one at a time (from any process) and the counts move with the vote.
 */
import type { LiveCriteria, VoteKind } from '../../domain/model.js';
import { uncounted, voteEffect } from '../../domain/votes.js';
import type { VoteInput, VoteOutcome, VoteStore } from '../../ports/vote-store.js';
import { all, getObjectRow, limitSql, one, writeFacts } from './pg-rows.js';
import type { PgSession } from './pg-session.js';
import { toVote, type VoteRow } from '../vote-rows.js';

export class PgVotes implements VoteStore {
  constructor(private readonly db: PgSession) {}

  cast(v: VoteInput, live: LiveCriteria): Promise<VoteOutcome | null> {
    return this.db.transaction(async (tx): Promise<VoteOutcome | null> => {
      if (!(await one(tx, 'SELECT 1 FROM objects WHERE id = @id FOR UPDATE', { id: v.objectId }))) return null;
      // Read after the lock, in a statement of its own: a statement that waited for the lock
      // sees the row it locked as now committed, but what it joined as of its start, so a vote
      // the same voter cast through another process meanwhile would be missed.
      const prior = await one<{ kind: VoteKind; verified: boolean; correction_id: string | null; quarantined: boolean }>(
        tx,
        'SELECT kind, first_verified_at IS NOT NULL AS verified, correction_id, quarantined FROM votes WHERE object_id = @o AND voter_id = @v',
        { o: v.objectId, v: v.voterId },
      );
      const effect = uncounted(
        voteEffect(prior ? { kind: prior.kind, verifiedBefore: prior.verified, correctionId: prior.correction_id } : null, v.kind, v.correctionId ?? null),
        prior?.quarantined === true,
      );
      if (!effect.changed) return { changed: false, firstVerification: false, object: (await getObjectRow(tx, v.objectId, live))! };
      // The vote and the counts it moves in one statement; the object comes back from it.
      const object = await writeFacts(
        tx,
        v.objectId,
        `verification_count = verification_count + @dv, contradiction_count = contradiction_count + @dc,
         last_verified_at = CASE WHEN @verified THEN @now ELSE last_verified_at END`,
        { ...v, dv: effect.verifications, dc: effect.contradictions, verified: effect.verified, now: live.now, firstVerifiedAt: effect.firstVerification ? live.now : null, correctionId: effect.correctionId, voterDomain: v.voterDomain ?? null },
        live,
        `WITH cast_vote AS (
           INSERT INTO votes (object_id, voter_id, kind, note, evidence_url, created_at, updated_at, first_verified_at, correction_id, voter_domain)
           VALUES (@objectId, @voterId, @kind, @note, @evidenceUrl, @now, @now, @firstVerifiedAt, @correctionId, @voterDomain)
           ON CONFLICT (object_id, voter_id) DO UPDATE SET kind = excluded.kind, note = excluded.note,
             evidence_url = excluded.evidence_url, updated_at = excluded.updated_at,
             first_verified_at = coalesce(votes.first_verified_at, excluded.first_verified_at), correction_id = excluded.correction_id, voter_domain = excluded.voter_domain)`,
      );
      // The statement's own read does not see the vote it wrote: a correction named or dropped is read again.
      const corrected = effect.correctionId !== (prior?.correction_id ?? null);
      return { changed: true, firstVerification: effect.firstVerification, object: corrected ? (await getObjectRow(tx, v.objectId, live))! : object! };
    });
  }

  async list(objectId: string, q: { limit: number; after?: { updatedAt: number; voterId: string } }) {
    const rows = await all<VoteRow>(
      this.db,
      `SELECT kind, note, evidence_url, correction_id, voter_id, created_at, updated_at FROM votes
       WHERE object_id = @objectId ${q.after ? 'AND (updated_at, voter_id) < (@updatedAt, @voterId)' : ''}
       ORDER BY updated_at DESC, voter_id DESC ${limitSql(q.limit)}`,
      { objectId, ...(q.after ?? {}) },
    );
    return rows.map(toVote);
  }
}
