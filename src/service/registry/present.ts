/** Registry records → the JSON views of schemas/registry.ts (which the HTML pages render too). */
import { iso } from '../present.js';
import { HISTORY_LABELS, OUTCOME_LABELS, VERDICT_LABELS, type HistoryEvent } from '../../domain/registry.js';
import type { ServerRecord, SyncRecord, ToolRow } from '../../ports/registry-store.js';
import type { RegistrySync, ServerDetail, ServerSummary, ToolDetail } from '../../schemas/registry.js';
import type { BoardObject } from '../../schemas/resources.js';
import { registryTopic } from '../../domain/topics.js';
import { connectSnippets } from './snippets.js';

/** `/servers/{namespace}/{name}`: registry names hold exactly one slash and only URL-safe characters. */
export const serverPath = (name: string) => `/servers/${name}`;
export const toolPath = (server: string, tool: string) => `${serverPath(server)}/tools/${encodeURIComponent(tool)}`;

export function presentSync(r: SyncRecord | null, enabled: boolean): RegistrySync {
  return {
    enabled,
    attempted_at: r ? iso(r.attemptedAt) : null,
    ok: r ? r.ok : null,
    error: r?.error ?? null,
    succeeded_at: r?.succeededAt != null ? iso(r.succeededAt) : null,
    entries: r?.entries ?? null,
  };
}

export function presentSummary(s: ServerRecord, baseUrl: string): ServerSummary {
  return {
    name: s.name,
    display_name: s.title ?? s.name,
    url: `${baseUrl}${serverPath(s.name)}`,
    version: s.version,
    status: s.status === 'deprecated' ? 'deprecated' : 'active',
    description: s.description,
    category: s.category,
    transport: s.remote?.type ?? null,
    endpoint: s.remote?.url ?? null,
    verdict: s.verdict,
    verdict_label: VERDICT_LABELS[s.verdict],
    tool_count: s.toolCount,
    checked_at: s.checkedAt === null ? null : iso(s.checkedAt),
  };
}

export function presentDetail(
  s: ServerRecord,
  parts: { tools: ToolRow[]; history: HistoryEvent[]; experiences: BoardObject[]; baseUrl: string; registryUrl: string | undefined },
): ServerDetail {
  const refused = s.httpStatus === 401 || s.httpStatus === 403;
  return {
    ...presentSummary(s, parts.baseUrl),
    first_seen_at: iso(s.firstSeenAt),
    published_at: s.publishedAt === null ? null : iso(s.publishedAt),
    updated_at: s.updatedAt === null ? null : iso(s.updatedAt),
    last_outcome: { kind: s.outcome, label: OUTCOME_LABELS[s.outcome], detail: s.outcomeDetail, http_status: s.httpStatus, protocol_version: s.protocolVersion },
    refused_probe: refused && s.outcome === 'auth-required',
    auth: s.verdict === 'needs-auth' ? { scheme: s.authScheme, resource_metadata_url: s.authMetadataUrl } : null,
    headers: (s.remote?.headers ?? []).map((h) => ({ name: h.name, description: h.description, required: h.required, secret: h.secret })),
    connect: s.remote ? connectSnippets(s.name, s.remote) : null,
    tools: parts.tools.map((t) => ({ name: t.name, title: t.title, description: t.description, url: `${parts.baseUrl}${toolPath(s.name, t.name)}` })),
    history: parts.history.map((e) => ({ kind: e.kind, label: HISTORY_LABELS[e.kind], tools: e.names, at: iso(e.at) })),
    experience_topic: registryTopic(s.name),
    experiences: parts.experiences,
    links: {
      website: s.websiteUrl,
      repository: s.repositoryUrl,
      registry: parts.registryUrl ? `${parts.registryUrl}/v0.1/servers/${encodeURIComponent(s.name)}/versions/latest` : null,
    },
  };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A readable type for a JSON Schema node: `string`, `integer | null`, `array of string`, `enum`, a `$ref` name. */
function schemaType(node: unknown, depth = 0): string {
  if (!isObject(node) || depth > 3) return 'any';
  if (typeof node.$ref === 'string') return node.$ref.split('/').pop() || 'reference';
  if (Array.isArray(node.enum)) return 'enum';
  if ('const' in node) return 'constant';
  const t = node.type;
  if (Array.isArray(t)) return t.filter((x) => typeof x === 'string').join(' | ') || 'any';
  if (t === 'array') return `array of ${schemaType(node.items, depth + 1)}`;
  if (typeof t === 'string') return t;
  const alternatives = (node.anyOf ?? node.oneOf) as unknown;
  if (Array.isArray(alternatives)) return alternatives.map((a) => schemaType(a, depth + 1)).join(' | ') || 'any';
  return 'any';
}

/** The top-level properties of an input schema as table rows. */
function schemaParameters(schema: unknown): ToolDetail['parameters'] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  return Object.entries(schema.properties)
    .slice(0, 200)
    .map(([name, node]) => ({
      name,
      type: schemaType(node),
      required: required.has(name),
      description: isObject(node) && typeof node.description === 'string' ? node.description.slice(0, 2000) : null,
    }));
}

export function presentTool(server: ServerRecord, t: ToolRow, baseUrl: string): ToolDetail {
  let schema: unknown = null;
  try {
    schema = JSON.parse(t.inputSchema);
  } catch {
    schema = null;
  }
  return {
    server: server.name,
    server_url: `${baseUrl}${serverPath(server.name)}`,
    name: t.name,
    title: t.title,
    description: t.description,
    input_schema: schema,
    parameters: schemaParameters(schema),
    listed: t.present,
    first_seen_at: iso(t.firstSeenAt),
    last_seen_at: iso(t.lastSeenAt),
  };
}
