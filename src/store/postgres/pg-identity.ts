/** The identity half of the PostgreSQL store: keys and reputable authors. */
import type { AuthorVoteStats } from '../../domain/reputation.js';
import type { IdentityStore } from '../../ports/identity-store.js';
import { one, run } from './pg-rows.js';
import type { PgSession } from './pg-session.js';

export class PgIdentity implements IdentityStore {
  constructor(private readonly db: PgSession) {}

  async registerKey(keyid: string, jwk: string, now: number): Promise<boolean> {
    return (await run(this.db, 'INSERT INTO keys (keyid, jwk, created_at) VALUES (@keyid, @jwk, @now) ON CONFLICT DO NOTHING', { keyid, jwk, now })) === 1;
  }

  async getKey(keyid: string): Promise<string | null> {
    return (await one<{ jwk: string }>(this.db, 'SELECT jwk FROM keys WHERE keyid = @keyid', { keyid }))?.jwk ?? null;
  }

  async lockAuthor(authorId: string): Promise<void> {
    await this.db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`author:${authorId}`]);
  }

  /**
   * Runs in a vote's write batch, planned once for any values (pg-group-commit.ts): the lateral
   * reads each of the author's objects' votes by key, where a join planned without the values
   * hashed every vote.
   */
  async authorVoteStats(authorId: string, since: number): Promise<AuthorVoteStats> {
    const row = await one<AuthorVoteStats>(
      this.db,
      `SELECT count(*) FILTER (WHERE v.kind = 'verify')::int AS verifications,
              count(DISTINCT v.voter_id) FILTER (WHERE v.kind = 'verify')::int AS verifiers,
              count(*) FILTER (WHERE v.kind = 'contradict')::int AS contradictions
       FROM objects o CROSS JOIN LATERAL (
         SELECT v.kind, v.voter_id FROM votes v WHERE v.object_id = o.id AND v.voter_id <> @author AND v.updated_at >= @since AND NOT v.quarantined OFFSET 0) v
       WHERE o.author_id = @author`,
      { author: authorId, since },
    );
    return { verifications: row!.verifications, verifiers: row!.verifiers, contradictions: row!.contradictions };
  }

  async setReputable(authorId: string, reputable: boolean, now: number): Promise<boolean> {
    // Objects read the author's standing from this table (object-columns.ts): nothing to copy.
    return reputable
      ? (await run(this.db, 'INSERT INTO reputable_authors (author_id, since) VALUES (@author, @now) ON CONFLICT DO NOTHING', { author: authorId, now })) === 1
      : (await run(this.db, 'DELETE FROM reputable_authors WHERE author_id = @author', { author: authorId })) === 1;
  }

  async isReputable(authorId: string): Promise<boolean> {
    return (await one(this.db, 'SELECT 1 FROM reputable_authors WHERE author_id = @author', { author: authorId })) !== undefined;
  }
}
