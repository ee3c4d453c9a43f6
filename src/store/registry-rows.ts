/** Registry rows as both SQL stores keep them (same columns), and their mapping to the port's records. */
import type { RegistryEntry, RemoteHeader, Verdict } from '../domain/registry.js';
import type { ServerRecord, ToolRow } from '../ports/registry-store.js';

export interface ServerRow {
  name: string;
  version: string;
  title: string | null;
  description: string;
  status: string;
  website_url: string | null;
  repository_url: string | null;
  category: string | null;
  remote_type: string | null;
  remote_url: string | null;
  remote_headers: string;
  published_at: number | null;
  updated_at: number | null;
  first_seen_at: number;
  synced_at: number;
  verdict: string;
  fail_streak: number;
  outcome: string;
  outcome_detail: string | null;
  http_status: number | null;
  protocol_version: string | null;
  auth_scheme: string | null;
  auth_metadata_url: string | null;
  tool_count: number | null;
  checked_at: number | null;
  next_probe_at: number | null;
}

export interface ToolDbRow {
  name: string;
  title: string | null;
  description: string | null;
  input_schema: string;
  first_seen_at: number;
  last_seen_at: number;
  /** 0/1 in SQLite, a boolean in PostgreSQL. */
  present: number | boolean;
}

export function toServer(r: ServerRow): ServerRecord {
  return {
    name: r.name,
    version: r.version,
    title: r.title,
    description: r.description,
    status: r.status as ServerRecord['status'],
    websiteUrl: r.website_url,
    repositoryUrl: r.repository_url,
    category: r.category,
    remote: r.remote_type && r.remote_url ? { type: r.remote_type as 'sse', url: r.remote_url, headers: JSON.parse(r.remote_headers) as RemoteHeader[] } : null,
    publishedAt: r.published_at,
    updatedAt: r.updated_at,
    firstSeenAt: r.first_seen_at,
    syncedAt: r.synced_at,
    verdict: r.verdict as Verdict,
    failStreak: r.fail_streak,
    outcome: r.outcome as ServerRecord['outcome'],
    outcomeDetail: r.outcome_detail,
    httpStatus: r.http_status,
    protocolVersion: r.protocol_version,
    authScheme: r.auth_scheme,
    authMetadataUrl: r.auth_metadata_url,
    toolCount: r.tool_count,
    checkedAt: r.checked_at,
    nextProbeAt: r.next_probe_at,
  };
}

export const toTool = (r: ToolDbRow): ToolRow => ({
  name: r.name,
  title: r.title,
  description: r.description,
  inputSchema: r.input_schema,
  firstSeenAt: r.first_seen_at,
  lastSeenAt: r.last_seen_at,
  present: r.present === 1 || r.present === true,
});

/** `LIKE` pattern for a literal substring. */
export const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;


/** A registry entry's column values, as both SQL stores bind them on sync. */
export function serverParams(e: RegistryEntry, now: number) {
  return {
    name: e.name,
    version: e.version,
    title: e.title,
    description: e.description,
    status: e.status,
    website_url: e.websiteUrl,
    repository_url: e.repositoryUrl,
    category: e.category,
    remote_type: e.remote?.type ?? null,
    remote_url: e.remote?.url ?? null,
    remote_headers: JSON.stringify(e.remote?.headers ?? []),
    published_at: e.publishedAt,
    updated_at: e.updatedAt,
    now,
  };
}
