/**
 * The spaces half of the Store port: spaces, their members (keys with a role) and their tokens
 * (kept only as a hash of the secret). Every grant is read from here on every request that needs
 * one, never cached, so a member removed or a token revoked on one instance stops working on
 * every instance at its next request.
 */
import type { Space, SpaceMember, SpaceRole, SpaceToken } from '../domain/spaces.js';

/** What changing a member answered: done, refused because no admin would be left, or (removal) no such member. */
export type MemberChange = 'done' | 'last-admin' | 'not-member';

export interface SpaceStore {
  /** Creates the space with `admin` as its first admin; false when the slug is taken. */
  create(space: Space, admin: string): Promise<boolean>;
  get(slug: string): Promise<Space | null>;
  /** The role `keyid` holds in the space; null when it is not a member (or there is no such space). */
  roleOf(slug: string, keyid: string): Promise<SpaceRole | null>;
  /** The spaces `keyid` is a member of, with its role in each, by slug. */
  spacesOf(keyid: string): Promise<(Space & { role: SpaceRole })[]>;
  /** The space's members, by keyid. */
  members(slug: string): Promise<SpaceMember[]>;
  /**
   * Gives `keyid` the role, or (null) removes it, in one transaction with the check that an
   * admin remains (domain/spaces.ts keepsAnAdmin): two admins demoting each other at once
   * cannot leave the space without one.
   */
  changeMember(slug: string, keyid: string, role: SpaceRole | null, at: number): Promise<MemberChange>;
  addToken(token: SpaceToken, hash: string): Promise<void>;
  /** The space's tokens, revoked and expired included, newest first; never their secrets. */
  tokens(slug: string): Promise<SpaceToken[]>;
  /** The token whose secret hashes to `hash`, in any state. */
  tokenByHash(hash: string): Promise<SpaceToken | null>;
  /** Revokes the space's token; false when it has no such token or it was already revoked. */
  revokeToken(slug: string, id: string, at: number): Promise<boolean>;
}
