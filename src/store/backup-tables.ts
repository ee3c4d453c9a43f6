/**
 * The columns of each table a backup carries (ports/backup.ts), alike on both engines, and which
 * hold booleans (0/1 on SQLite, boolean on PostgreSQL), so that a row reads the same from either.
 */
import type { BackedUpTable, BackupRow } from '../ports/backup.js';

interface TableShape {
  columns: readonly string[];
  /** The key the rows are read in order of. */
  orderBy: string;
  booleans?: readonly string[];
  /** A column the engine numbers itself (PostgreSQL: GENERATED ALWAYS), restored as it was. */
  identity?: string;
}

export const TABLES: Record<BackedUpTable, TableShape> = {
  votes: {
    columns: ['object_id', 'voter_id', 'kind', 'note', 'evidence_url', 'created_at', 'updated_at', 'first_verified_at', 'correction_id', 'quarantined', 'voter_domain'],
    orderBy: 'object_id, voter_id',
    booleans: ['quarantined'],
  },
  keys: { columns: ['keyid', 'jwk', 'created_at'], orderBy: 'keyid' },
  reputable_authors: { columns: ['author_id', 'since'], orderBy: 'author_id' },
  registry_servers: {
    columns: [
      'name', 'version', 'title', 'description', 'status', 'website_url', 'repository_url', 'category', 'remote_type', 'remote_url', 'remote_headers', 'published_at',
      'updated_at', 'first_seen_at', 'synced_at', 'verdict', 'fail_streak', 'outcome', 'outcome_detail', 'http_status', 'protocol_version', 'auth_scheme',
      'auth_metadata_url', 'tool_count', 'checked_at', 'next_probe_at',
    ],
    orderBy: 'name',
  },
  registry_tools: { columns: ['server_name', 'name', 'title', 'description', 'input_schema', 'first_seen_at', 'last_seen_at', 'present'], orderBy: 'server_name, name', booleans: ['present'] },
  registry_events: { columns: ['seq', 'server_name', 'kind', 'names', 'at'], orderBy: 'seq', identity: 'seq' },
  registry_sync: { columns: ['id', 'attempted_at', 'ok', 'error', 'succeeded_at', 'entries'], orderBy: 'id', booleans: ['ok'] },
  quarantines: { columns: ['id', 'keyid', 'domain', 'reason', 'created_at', 'lifted_at', 'affected'], orderBy: 'id' },
  moderation_log: { columns: ['seq', 'action', 'target', 'reason', 'affected', 'at'], orderBy: 'seq', identity: 'seq' },
  // Members and tokens name their space: restored after it. Tokens keep only their secret's hash.
  spaces: { columns: ['slug', 'name', 'created_at'], orderBy: 'slug' },
  space_members: { columns: ['space', 'keyid', 'role', 'added_at'], orderBy: 'space, keyid' },
  space_tokens: { columns: ['id', 'space', 'name', 'role', 'hash', 'created_at', 'expires_at', 'revoked_at'], orderBy: 'id' },
};

/** A row read from an engine, in the shared form: booleans as booleans, big integers as numbers. */
export function neutralRow(table: BackedUpTable, raw: Record<string, unknown>): BackupRow {
  const shape = TABLES[table];
  const row: BackupRow = {};
  for (const c of shape.columns) {
    const v = raw[c] ?? null;
    row[c] = shape.booleans?.includes(c) ? (v === null ? null : Boolean(v)) : typeof v === 'bigint' ? Number(v) : (v as string | number | null);
  }
  return row;
}

/** The values of a row in `columns` order, booleans as the engine stores them. */
export function rowValues(table: BackedUpTable, row: BackupRow, booleanAs: (b: boolean) => unknown): unknown[] {
  const shape = TABLES[table];
  return shape.columns.map((c) => {
    const v = row[c] ?? null;
    return shape.booleans?.includes(c) && v !== null ? booleanAs(Boolean(v)) : v;
  });
}
