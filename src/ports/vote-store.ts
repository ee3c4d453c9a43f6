/** The votes half of the Store port: one vote per voter and object, with the counts kept. */
import type { LiveCriteria, StoredObject, VoteKind, VoteRecord } from '../domain/model.js';

export interface VoteInput {
  objectId: string;
  voterId: string;
  kind: VoteKind;
  note: string | null;
  evidenceUrl: string | null;
  /** A contradiction's named correction (domain/votes.ts). */
  correctionId?: string | null;
  /** The domain the signed voter's key is verified for: a quarantine of that domain covers the vote. */
  voterDomain?: string | null;
}

export interface VoteOutcome {
  /** False when the same voter had already cast the same vote. */
  changed: boolean;
  /** The voter verified the object for the first time (domain/votes.ts). */
  firstVerification: boolean;
  object: StoredObject;
}

export interface VoteStore {
  /** Sets the voter's vote on the object, moving it if it differs, and keeps the counts; null when there is no such object. */
  cast(v: VoteInput, live: LiveCriteria): Promise<VoteOutcome | null>;
  /**
   * An object's votes, most recently cast or moved first, after the position `after` when given.
   * `voterId` is the stored voter identity (`anon:…` for anonymous voters).
   */
  list(objectId: string, q: { limit: number; after?: { updatedAt: number; voterId: string } }): Promise<(Omit<VoteRecord, 'voter'> & { voterId: string })[]>;
}
