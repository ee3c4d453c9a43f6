/** A vote row as both SQL stores read it back, and its mapping to the port's record. */
import type { VoteKind, VoteRecord } from '../domain/model.js';

export interface VoteRow {
  kind: VoteKind;
  note: string | null;
  evidence_url: string | null;
  correction_id: string | null;
  voter_id: string;
  created_at: number;
  updated_at: number;
}

export const toVote = (r: VoteRow): Omit<VoteRecord, 'voter'> & { voterId: string } => ({
  kind: r.kind,
  note: r.note,
  evidenceUrl: r.evidence_url,
  correctionId: r.correction_id,
  voterId: r.voter_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
