/** A quarantine row as both SQL stores read it, and the clauses that name a source's objects and votes. */
import type { QuarantineRecord, QuarantineSource } from '../ports/moderation-store.js';

export interface QuarantineRow {
  id: string;
  keyid: string | null;
  domain: string | null;
  reason: string;
  created_at: number;
  lifted_at: number | null;
  affected: number;
}

export const toQuarantine = (r: QuarantineRow): QuarantineRecord => ({
  id: r.id,
  source: r.keyid !== null ? { keyid: r.keyid, domain: null } : { keyid: null, domain: r.domain! },
  reason: r.reason,
  createdAt: r.created_at,
  liftedAt: r.lifted_at,
  affected: Number(r.affected),
});

/** The objects a source wrote, on the table aliased `o`. */
export const wroteSql = (s: QuarantineSource) => (s.keyid !== null ? 'o.author_id = @keyid' : 'o.author_domain = @domain');
/** The votes a source cast, on the table aliased `v`. */
export const castSql = (s: QuarantineSource) => (s.keyid !== null ? 'v.voter_id = @keyid' : 'v.voter_domain = @domain');
export const sourceParams = (s: QuarantineSource) => (s.keyid !== null ? { keyid: s.keyid } : { domain: s.domain });
/** The active quarantine of the source's kind, by the value bound as @v. */
export const activeOfSql = (s: QuarantineSource) => `SELECT * FROM quarantines WHERE lifted_at IS NULL AND ${s.keyid !== null ? 'keyid = @v' : 'domain = @v'}`;
