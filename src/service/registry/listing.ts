/**
 * Reading an MCP registry's `GET /v0.1/servers` listing (mcp-and-protocols.md §1). Every field
 * is third-party input: shapes are checked loosely (unknown keys ignored), text is stripped of
 * control characters and clipped, links must be http(s), and an entry that makes no sense is
 * skipped and counted rather than failing the whole page.
 */
import { z } from 'zod';
import type { RegistryEntry, Remote, RemoteHeader } from '../../domain/registry.js';
import { safeFetch, type SafeFetchOptions } from '../../net/safe-fetch.js';
import { clip, webUrl } from './third-party.js';

/** Registry names: reverse-DNS namespace, one slash, name (server.json schema). */
const SERVER_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const OFFICIAL = 'io.modelcontextprotocol.registry/official';
const PUBLISHER = 'io.modelcontextprotocol.registry/publisher-provided';

const timestamp = (v: unknown): number | null => {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isFinite(t) ? t : null;
};

const Loose = z.record(z.string(), z.unknown());
const ListingPage = z.object({
  servers: z.array(z.unknown()),
  metadata: z.object({ nextCursor: z.string().max(1000).nullish() }).loose().optional(),
});

function header(raw: unknown): RemoteHeader | null {
  const h = Loose.safeParse(raw);
  if (!h.success) return null;
  const name = clip(h.data.name, 100);
  if (!name || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return null;
  return {
    name,
    description: clip(h.data.description, 300),
    required: h.data.isRequired === true,
    secret: h.data.isSecret === true,
    value: clip(h.data.value, 300),
  };
}

/** The remote the board describes: the first streamable-http one, else the first sse one. */
function pickRemote(raw: unknown): Remote | null {
  if (!Array.isArray(raw)) return null;
  const remotes = raw
    .map((r) => Loose.safeParse(r))
    .filter((r) => r.success)
    .map((r) => r.data)
    .filter((r) => (r.type === 'streamable-http' || r.type === 'sse') && typeof r.url === 'string');
  const chosen = remotes.find((r) => r.type === 'streamable-http') ?? remotes[0];
  if (!chosen) return null;
  // Template URLs keep their {placeholders}: URL parsing would percent-encode them.
  const url = clip(chosen.url, 2048);
  if (!url || !/^https?:\/\//i.test(url)) return null;
  const headers = Array.isArray(chosen.headers) ? chosen.headers.slice(0, 20).map(header).filter((h): h is RemoteHeader => h !== null) : [];
  return { type: chosen.type as Remote['type'], url, headers };
}

/** One listing item → an entry, or null when it is not a usable server record. */
export function toEntry(raw: unknown): RegistryEntry | null {
  const item = Loose.safeParse(raw);
  if (!item.success) return null;
  const server = Loose.safeParse(item.data.server);
  if (!server.success) return null;
  const s = server.data;
  const name = typeof s.name === 'string' && s.name.length >= 3 && s.name.length <= 200 && SERVER_NAME.test(s.name) ? s.name : null;
  const version = clip(s.version, 255);
  if (!name || !version) return null;
  const meta = Loose.safeParse(item.data._meta);
  const official = meta.success ? Loose.safeParse(meta.data[OFFICIAL]) : null;
  const o = official?.success ? official.data : {};
  const status = o.status === 'deprecated' || o.status === 'deleted' ? o.status : 'active';
  const repository = Loose.safeParse(s.repository);
  const publisher = Loose.safeParse(Loose.safeParse(s._meta).data?.[PUBLISHER]);
  return {
    name,
    version,
    title: clip(s.title, 100),
    description: clip(s.description, 500) ?? '',
    status,
    websiteUrl: webUrl(s.websiteUrl),
    repositoryUrl: repository.success ? webUrl(repository.data.url) : null,
    category: publisher.success ? clip(publisher.data.category, 40) : null,
    remote: pickRemote(s.remotes),
    publishedAt: timestamp(o.publishedAt),
    updatedAt: timestamp(o.updatedAt),
  };
}

export interface ListingPageResult {
  entries: RegistryEntry[];
  /** Items that were not usable server records. */
  skipped: number;
  nextCursor: string | null;
}

export function parseListingPage(body: unknown): ListingPageResult {
  const page = ListingPage.safeParse(body);
  if (!page.success) throw new Error('the registry answered with something that is not a server listing');
  const entries: RegistryEntry[] = [];
  let skipped = 0;
  for (const raw of page.data.servers) {
    const e = toEntry(raw);
    if (e) entries.push(e);
    else skipped++;
  }
  return { entries, skipped, nextCursor: page.data.metadata?.nextCursor || null };
}

/** Walks the listing (`version=latest`, 100 a page), page by page, following `metadata.nextCursor`. */
export async function* readListing(baseUrl: string, fetchOptions: SafeFetchOptions, maxPages = 10_000): AsyncGenerator<ListingPageResult> {
  let cursor: string | null = null;
  const seen = new Set<string>();
  for (let n = 0; n < maxPages; n++) {
    const url = new URL(`${baseUrl}/v0.1/servers`);
    url.searchParams.set('version', 'latest');
    url.searchParams.set('limit', '100');
    if (cursor) url.searchParams.set('cursor', cursor);
    const res = await safeFetch(url.toString(), { headers: { accept: 'application/json', 'user-agent': 'agentboard-registry-sync' } }, fetchOptions);
    if (res.status !== 200) throw new Error(`the registry answered ${res.status} for ${url.pathname}${url.search}`);
    let body: unknown;
    try {
      body = JSON.parse(res.text());
    } catch {
      throw new Error('the registry answered with invalid JSON');
    }
    const page = parseListingPage(body);
    yield page;
    // A cursor that repeats would loop forever.
    if (!page.nextCursor || seen.has(page.nextCursor)) return;
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}
