/** The identity half of the Store port: registered public keys and who is reputable. */
import type { AuthorVoteStats } from '../domain/reputation.js';

export interface IdentityStore {
  /** Stores the public JWK (JSON text) under its thumbprint; false when it was already known. */
  registerKey(keyid: string, jwk: string, now: number): Promise<boolean>;
  /** The registered public JWK (JSON text), or null. */
  getKey(keyid: string): Promise<string | null>;
  /**
   * Inside withTransaction: holds the author's standing until the transaction ends, so two
   * votes on the author's objects re-derive it one after the other, each seeing the other's vote.
   */
  lockAuthor(authorId: string): Promise<void>;
  /** Votes cast since `since` on the author's objects by other voters. */
  authorVoteStats(authorId: string, since: number): Promise<AuthorVoteStats>;
  /**
   * Marks the author reputable or not. Their objects show `reputable` while they are, and the
   * trust they were signed with otherwise. Returns whether anything changed.
   */
  setReputable(authorId: string, reputable: boolean, now: number): Promise<boolean>;
  isReputable(authorId: string): Promise<boolean>;
}
