/** The identity half of the SQLite store: keys and reputable authors (migration 7). */
import type { AuthorVoteStats } from '../../domain/reputation.js';
import type { IdentityStore } from '../../ports/identity-store.js';
import { isReputable, type Sql } from './sqlite-rows.js';

export class SqliteIdentity implements IdentityStore {
  constructor(private readonly sql: Sql) {}

  async registerKey(keyid: string, jwk: string, now: number): Promise<boolean> {
    return this.sql('INSERT OR IGNORE INTO keys (keyid, jwk, created_at) VALUES (?, ?, ?)').run(keyid, jwk, now).changes === 1;
  }

  async getKey(keyid: string): Promise<string | null> {
    return (this.sql('SELECT jwk FROM keys WHERE keyid = ?').get(keyid) as { jwk: string } | undefined)?.jwk ?? null;
  }

  /** BEGIN IMMEDIATE already makes every write transaction run alone. */
  async lockAuthor(): Promise<void> {}

  async authorVoteStats(authorId: string, since: number): Promise<AuthorVoteStats> {
    const row = this.sql(
      `SELECT coalesce(sum(v.kind = 'verify'), 0) AS verifications,
              count(DISTINCT CASE WHEN v.kind = 'verify' THEN v.voter_id END) AS verifiers,
              coalesce(sum(v.kind = 'contradict'), 0) AS contradictions
       FROM objects o JOIN votes v ON v.object_id = o.id
       WHERE o.author_id = @author AND v.voter_id <> @author AND v.updated_at >= @since AND NOT v.quarantined`,
    ).get({ author: authorId, since }) as AuthorVoteStats;
    return { verifications: row.verifications, verifiers: row.verifiers, contradictions: row.contradictions };
  }

  async setReputable(authorId: string, reputable: boolean, now: number): Promise<boolean> {
    // Objects read the author's standing from this table (object-columns.ts): nothing to copy.
    return reputable
      ? this.sql('INSERT OR IGNORE INTO reputable_authors (author_id, since) VALUES (?, ?)').run(authorId, now).changes === 1
      : this.sql('DELETE FROM reputable_authors WHERE author_id = ?').run(authorId).changes === 1;
  }

  async isReputable(authorId: string): Promise<boolean> {
    return isReputable(this.sql, authorId);
  }
}
