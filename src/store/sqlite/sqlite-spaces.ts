/** The spaces half of the SQLite store: spaces, members and token hashes. */
import type Database from 'better-sqlite3';
import { keepsAnAdmin, type Space, type SpaceMember, type SpaceRole, type SpaceToken } from '../../domain/spaces.js';
import type { MemberChange, SpaceStore } from '../../ports/space-store.js';
import { TOKEN_COLUMNS, toMember, toSpace, toToken, type MemberRow, type SpaceRow, type TokenRow } from '../space-rows.js';
import type { Sql } from './sqlite-rows.js';

export class SqliteSpaces implements SpaceStore {
  constructor(
    private readonly db: Database.Database,
    private readonly sql: Sql,
  ) {}

  async create(space: Space, admin: string): Promise<boolean> {
    return this.db.transaction(() => {
      if (this.sql('INSERT OR IGNORE INTO spaces (slug, name, created_at) VALUES (?, ?, ?)').run(space.slug, space.name, space.createdAt).changes === 0) return false;
      this.sql("INSERT INTO space_members (space, keyid, role, added_at) VALUES (?, ?, 'admin', ?)").run(space.slug, admin, space.createdAt);
      return true;
    })();
  }

  async get(slug: string): Promise<Space | null> {
    const row = this.sql('SELECT slug, name, created_at FROM spaces WHERE slug = ?').get(slug) as SpaceRow | undefined;
    return row ? toSpace(row) : null;
  }

  async roleOf(slug: string, keyid: string): Promise<SpaceRole | null> {
    return ((this.sql('SELECT role FROM space_members WHERE space = ? AND keyid = ?').get(slug, keyid) as { role: SpaceRole } | undefined)?.role ?? null);
  }

  async spacesOf(keyid: string): Promise<(Space & { role: SpaceRole })[]> {
    const rows = this.sql('SELECT s.slug, s.name, s.created_at, m.role FROM space_members m JOIN spaces s ON s.slug = m.space WHERE m.keyid = ? ORDER BY s.slug').all(keyid) as (SpaceRow & { role: SpaceRole })[];
    return rows.map((r) => ({ ...toSpace(r), role: r.role }));
  }

  async members(slug: string): Promise<SpaceMember[]> {
    return (this.sql('SELECT keyid, role, added_at FROM space_members WHERE space = ? ORDER BY keyid').all(slug) as MemberRow[]).map(toMember);
  }

  async changeMember(slug: string, keyid: string, role: SpaceRole | null, at: number): Promise<MemberChange> {
    return this.db.transaction((): MemberChange => {
      const members = this.sql('SELECT keyid, role FROM space_members WHERE space = ?').all(slug) as { keyid: string; role: SpaceRole }[];
      if (role === null && !members.some((m) => m.keyid === keyid)) return 'not-member';
      if (!keepsAnAdmin(members, keyid, role)) return 'last-admin';
      if (role === null) this.sql('DELETE FROM space_members WHERE space = ? AND keyid = ?').run(slug, keyid);
      else this.sql('INSERT INTO space_members (space, keyid, role, added_at) VALUES (?, ?, ?, ?) ON CONFLICT (space, keyid) DO UPDATE SET role = excluded.role').run(slug, keyid, role, at);
      return 'done';
    })();
  }

  async addToken(t: SpaceToken, hash: string): Promise<void> {
    this.sql(`INSERT INTO space_tokens (${TOKEN_COLUMNS}, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(t.id, t.space, t.name, t.role, t.createdAt, t.expiresAt, t.revokedAt, hash);
  }

  async tokens(slug: string): Promise<SpaceToken[]> {
    return (this.sql(`SELECT ${TOKEN_COLUMNS} FROM space_tokens WHERE space = ? ORDER BY id DESC`).all(slug) as TokenRow[]).map(toToken);
  }

  async tokenByHash(hash: string): Promise<SpaceToken | null> {
    const row = this.sql(`SELECT ${TOKEN_COLUMNS} FROM space_tokens WHERE hash = ?`).get(hash) as TokenRow | undefined;
    return row ? toToken(row) : null;
  }

  async revokeToken(slug: string, id: string, at: number): Promise<boolean> {
    return this.sql('UPDATE space_tokens SET revoked_at = ? WHERE space = ? AND id = ? AND revoked_at IS NULL').run(at, slug, id).changes === 1;
  }
}
