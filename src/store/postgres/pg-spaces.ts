/**
 * The spaces half of the PostgreSQL store: spaces, members and token hashes. A change of members
 * locks the space's row first, so changes from any instance apply one at a time and the check
 * that an admin remains sees every one before it.
 */
import { keepsAnAdmin, type Space, type SpaceMember, type SpaceRole, type SpaceToken } from '../../domain/spaces.js';
import type { MemberChange, SpaceStore } from '../../ports/space-store.js';
import { TOKEN_COLUMNS, toMember, toSpace, toToken, type MemberRow, type SpaceRow, type TokenRow } from '../space-rows.js';
import { all, one, run } from './pg-rows.js';
import type { PgSession } from './pg-session.js';

export class PgSpaces implements SpaceStore {
  constructor(private readonly db: PgSession) {}

  create(space: Space, admin: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if ((await run(tx, 'INSERT INTO spaces (slug, name, created_at) VALUES (@slug, @name, @at) ON CONFLICT DO NOTHING', { slug: space.slug, name: space.name, at: space.createdAt })) === 0) return false;
      await run(tx, "INSERT INTO space_members (space, keyid, role, added_at) VALUES (@slug, @admin, 'admin', @at)", { slug: space.slug, admin, at: space.createdAt });
      return true;
    });
  }

  async get(slug: string): Promise<Space | null> {
    const row = await one<SpaceRow>(this.db, 'SELECT slug, name, created_at FROM spaces WHERE slug = @slug', { slug });
    return row ? toSpace(row) : null;
  }

  async roleOf(slug: string, keyid: string): Promise<SpaceRole | null> {
    return (await one<{ role: SpaceRole }>(this.db, 'SELECT role FROM space_members WHERE space = @slug AND keyid = @keyid', { slug, keyid }))?.role ?? null;
  }

  async spacesOf(keyid: string): Promise<(Space & { role: SpaceRole })[]> {
    const rows = await all<SpaceRow & { role: SpaceRole }>(
      this.db,
      'SELECT s.slug, s.name, s.created_at, m.role FROM space_members m JOIN spaces s ON s.slug = m.space WHERE m.keyid = @keyid ORDER BY s.slug',
      { keyid },
    );
    return rows.map((r) => ({ ...toSpace(r), role: r.role }));
  }

  async members(slug: string): Promise<SpaceMember[]> {
    return (await all<MemberRow>(this.db, 'SELECT keyid, role, added_at FROM space_members WHERE space = @slug ORDER BY keyid', { slug })).map(toMember);
  }

  changeMember(slug: string, keyid: string, role: SpaceRole | null, at: number): Promise<MemberChange> {
    return this.db.transaction(async (tx): Promise<MemberChange> => {
      await one(tx, 'SELECT 1 FROM spaces WHERE slug = @slug FOR UPDATE', { slug });
      const members = await all<{ keyid: string; role: SpaceRole }>(tx, 'SELECT keyid, role FROM space_members WHERE space = @slug', { slug });
      if (role === null && !members.some((m) => m.keyid === keyid)) return 'not-member';
      if (!keepsAnAdmin(members, keyid, role)) return 'last-admin';
      if (role === null) await run(tx, 'DELETE FROM space_members WHERE space = @slug AND keyid = @keyid', { slug, keyid });
      else {
        await run(
          tx,
          'INSERT INTO space_members (space, keyid, role, added_at) VALUES (@slug, @keyid, @role, @at) ON CONFLICT (space, keyid) DO UPDATE SET role = excluded.role',
          { slug, keyid, role, at },
        );
      }
      return 'done';
    });
  }

  async addToken(t: SpaceToken, hash: string): Promise<void> {
    await run(
      this.db,
      `INSERT INTO space_tokens (${TOKEN_COLUMNS}, hash) VALUES (@id, @space, @name, @role, @createdAt, @expiresAt, @revokedAt, @hash)`,
      { ...t, hash },
    );
  }

  async tokens(slug: string): Promise<SpaceToken[]> {
    return (await all<TokenRow>(this.db, `SELECT ${TOKEN_COLUMNS} FROM space_tokens WHERE space = @slug ORDER BY id DESC`, { slug })).map(toToken);
  }

  async tokenByHash(hash: string): Promise<SpaceToken | null> {
    const row = await one<TokenRow>(this.db, `SELECT ${TOKEN_COLUMNS} FROM space_tokens WHERE hash = @hash`, { hash });
    return row ? toToken(row) : null;
  }

  async revokeToken(slug: string, id: string, at: number): Promise<boolean> {
    return (await run(this.db, 'UPDATE space_tokens SET revoked_at = @at WHERE space = @slug AND id = @id AND revoked_at IS NULL', { slug, id, at })) === 1;
  }
}
