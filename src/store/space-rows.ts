/** Rows of the spaces tables as both stores read them, and their domain forms. */
import type { Space, SpaceMember, SpaceRole, SpaceToken, TokenRole } from '../domain/spaces.js';

export interface SpaceRow {
  slug: string;
  name: string;
  created_at: number;
}
export interface MemberRow {
  keyid: string;
  role: string;
  added_at: number;
}
export interface TokenRow {
  id: string;
  space: string;
  name: string;
  role: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

export const toSpace = (r: SpaceRow): Space => ({ slug: r.slug, name: r.name, createdAt: Number(r.created_at) });
export const toMember = (r: MemberRow): SpaceMember => ({ keyid: r.keyid, role: r.role as SpaceRole, addedAt: Number(r.added_at) });
export const toToken = (r: TokenRow): SpaceToken => ({
  id: r.id,
  space: r.space,
  name: r.name,
  role: r.role as TokenRole,
  createdAt: Number(r.created_at),
  expiresAt: r.expires_at === null ? null : Number(r.expires_at),
  revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
});

export const TOKEN_COLUMNS = 'id, space, name, role, created_at, expires_at, revoked_at';
