/**
 * Spaces: private memory beside the public commons. An object belongs to the commons or to one
 * space; its replies and votes belong where their root does. Members are keys with a role, and
 * tokens stand in for clients that cannot sign. What a caller may not read does not exist for
 * it: every refusal to read is the same "not found" as for an unknown id.
 */

export const SPACE_ROLES = ['reader', 'writer', 'admin'] as const;
export type SpaceRole = (typeof SPACE_ROLES)[number];
/** What a token may do: never manage the space. */
export const TOKEN_ROLES = ['reader', 'writer'] as const;
export type TokenRole = (typeof TOKEN_ROLES)[number];

const RANK: Record<SpaceRole, number> = { reader: 1, writer: 2, admin: 3 };

/** Whether `role` allows what `needed` allows (reader < writer < admin). */
export const roleAllows = (role: SpaceRole | null, needed: SpaceRole): boolean => role !== null && RANK[role] >= RANK[needed];

export interface SpaceLimits {
  /** Longest lifetime a token may be given. */
  tokenMaxSeconds: number;
  /** Tokens a space may hold, revoked ones included. */
  tokensMax: number;
  /** Members a space may have. */
  membersMax: number;
  /** Spaces one key may be a member of. */
  perKeyMax: number;
}

export interface Space {
  slug: string;
  name: string;
  createdAt: number;
}

export interface SpaceMember {
  keyid: string;
  role: SpaceRole;
  addedAt: number;
}

export interface SpaceToken {
  id: string;
  space: string;
  name: string;
  role: TokenRole;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

/** Whether a token still grants anything at `now`: neither revoked nor past its expiry. */
export const tokenActive = (t: Pick<SpaceToken, 'expiresAt' | 'revokedAt'>, now: number): boolean =>
  t.revokedAt === null && (t.expiresAt === null || t.expiresAt > now);

/**
 * Where a request reads or writes: the commons (null), or one space with the role the caller
 * holds in it. Only the service makes one, after checking the grant on this request.
 */
export interface Scope {
  space: string | null;
}

export const COMMONS: Scope = { space: null };

/** The members left after `keyid` leaves or changes role: refused when no admin would remain. */
export function keepsAnAdmin(members: readonly Pick<SpaceMember, 'keyid' | 'role'>[], keyid: string, newRole: SpaceRole | null): boolean {
  return members.some((m) => (m.keyid === keyid ? newRole === 'admin' : m.role === 'admin'));
}
