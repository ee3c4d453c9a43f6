/**
 * One honest probe of a remote MCP server (docs/decisions.md, Registry record pages): the official
 * client (`@modelcontextprotocol/client`, both protocol eras: `server/discover` first, the
 * `initialize` handshake as fallback), no credentials, `tools/list` over every page, never
 * `tools/call`, one budget for the whole exchange.
 *
 * Every request goes through safeFetch, so probes obey the outbound rules (no private
 * addresses unless allowed, capped bodies, redirects re-checked). Each raw response is kept:
 * the client's errors do not carry `WWW-Authenticate`, the verdict needs it.
 */
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import type { ProbeOutcome, ProbeOutcomeKind, ToolRecord } from '../../domain/registry.js';
import { OutboundRefused, safeFetch, type SafeFetchOptions } from '../../net/safe-fetch.js';
import { clip } from './third-party.js';
import { readChallenge } from './www-authenticate.js';

export interface ProbeOptions {
  timeoutMs: number;
  maxBytes: number;
  allowPrivateNetwork: boolean;
  maxTools: number;
  /** Reported to servers as clientInfo. */
  version: string;
  addressAllowed?: SafeFetchOptions['addressAllowed'];
  /** Ends the probe early (shutdown); the outcome is then not an observation of the server. */
  signal?: AbortSignal;
}

interface Seen {
  status: number;
  headers: Headers;
  url: string;
}

/** Largest input schema kept per tool; bigger ones are replaced by a note. */
const MAX_SCHEMA_CHARS = 64 * 1024;
const NETWORK_CODES = /^(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EPIPE|ETIMEDOUT|CERT_|ERR_TLS|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_VERIFY)/;

const outcome = (kind: ProbeOutcomeKind, detail: string, patch: Partial<ProbeOutcome> = {}): ProbeOutcome => ({
  kind,
  detail: clip(detail, 300) ?? kind,
  httpStatus: null,
  protocolVersion: null,
  tools: null,
  toolCount: null,
  auth: null,
  ...patch,
});

function headerRecord(h: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(h).forEach((value, key) => (out[key] = value));
  return out;
}

function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) h.append(k, one);
  }
  return h;
}

function toolRecords(tools: readonly Tool[], max: number): ToolRecord[] {
  const seen = new Set<string>();
  const out: ToolRecord[] = [];
  for (const t of tools) {
    const name = clip(t.name, 128);
    if (!name || seen.has(name)) continue;
    seen.add(name);
    let schema = JSON.stringify(t.inputSchema ?? {});
    if (schema.length > MAX_SCHEMA_CHARS) schema = JSON.stringify({ note: `input schema of ${schema.length} characters not kept` });
    out.push({ name, title: clip(t.title ?? t.annotations?.title, 200), description: clip(t.description, 4000), inputSchema: schema });
    if (out.length >= max) break;
  }
  return out;
}

export async function probeServer(url: string, o: ProbeOptions): Promise<ProbeOutcome> {
  const started = Date.now();
  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(), o.timeoutMs);
  const cutShort = () => budget.abort();
  o.signal?.addEventListener('abort', cutShort, { once: true });
  const seen: Seen[] = [];
  let fetchError: unknown = null;
  const fetchOptions = (): SafeFetchOptions => ({
    allowPrivateNetwork: o.allowPrivateNetwork,
    timeoutMs: Math.max(1, o.timeoutMs - (Date.now() - started)),
    maxBytes: o.maxBytes,
    signal: budget.signal,
    ...(o.addressAllowed ? { addressAllowed: o.addressAllowed } : {}),
  });

  const probeFetch = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    // A probe needs no server-to-client stream: a GET would hold a connection for the whole budget.
    if ((init?.method ?? 'GET').toUpperCase() === 'GET') return new Response(null, { status: 405 });
    try {
      const res = await safeFetch(
        String(input),
        { method: init?.method ?? 'POST', headers: headerRecord(init?.headers), ...(typeof init?.body === 'string' ? { body: init.body } : {}) },
        fetchOptions(),
      );
      const headers = responseHeaders(res.headers);
      seen.push({ status: res.status, headers, url: res.url });
      const empty = res.status === 204 || res.status === 205 || res.status === 304;
      return new Response(empty ? null : (res.body as Uint8Array<ArrayBuffer>), { status: res.status, headers });
    } catch (err) {
      fetchError ??= err;
      throw err;
    }
  };

  const client = new Client({ name: 'agentboard-probe', version: o.version }, { versionNegotiation: { mode: 'auto' }, listMaxPages: 50 });
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: probeFetch });
  try {
    const deadline = new Promise<never>((_, reject) => budget.signal.addEventListener('abort', () => reject(new Error('probe budget spent')), { once: true }));
    const tools = await Promise.race([
      (async () => {
        await client.connect(transport, { timeout: o.timeoutMs });
        return (await client.listTools()).tools;
      })(),
      deadline,
    ]);
    const records = toolRecords(tools, o.maxTools);
    const version = client.getNegotiatedProtocolVersion() ?? null;
    return outcome('working', `protocol ${version ?? 'unknown'}, ${tools.length} ${tools.length === 1 ? 'tool' : 'tools'}`, {
      httpStatus: seen.at(-1)?.status ?? null,
      protocolVersion: version,
      tools: records,
      toolCount: tools.length,
    });
  } catch (err) {
    return await classifyFailure(err, fetchError, seen, budget.signal.aborted, url, fetchOptions);
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', cutShort);
    budget.abort();
    await client.close().catch(() => undefined);
  }
}

async function classifyFailure(
  err: unknown,
  fetchError: unknown,
  seen: readonly Seen[],
  timedOut: boolean,
  url: string,
  fetchOptions: () => SafeFetchOptions,
): Promise<ProbeOutcome> {
  const challenged = seen.find((r) => r.status === 401 || (r.status === 403 && r.headers.has('www-authenticate')));
  if (challenged) {
    const challenge = readChallenge(challenged.headers.get('www-authenticate'));
    const metadataUrl = challenge.resourceMetadata ?? (timedOut ? null : await wellKnownMetadata(url, fetchOptions));
    return outcome('auth-required', `HTTP ${challenged.status}${challenge.scheme ? `, ${challenge.scheme} challenge` : ', no challenge header'}`, {
      httpStatus: challenged.status,
      auth: { scheme: challenge.scheme, metadataUrl },
    });
  }
  const last = seen.at(-1);
  const cause = fetchError ?? err;
  if (cause instanceof OutboundRefused) {
    if (cause.reason === 'timeout') return outcome('timeout', cause.message);
    if (cause.reason === 'too-large') return outcome('error', cause.message, { httpStatus: last?.status ?? null });
    return outcome('refused', cause.message);
  }
  if (timedOut) return outcome('timeout', 'no complete answer within the probe budget', { httpStatus: last?.status ?? null });
  if (last && last.status >= 500) return outcome('server-error', `HTTP ${last.status}`, { httpStatus: last.status });
  if (last?.status === 429) return outcome('rate-limited', 'HTTP 429', { httpStatus: 429 });
  const code = String((cause as { code?: unknown } | null)?.code ?? (cause as { cause?: { code?: unknown } } | null)?.cause?.code ?? '');
  if (!last && NETWORK_CODES.test(code)) return outcome('unreachable', `${code}: ${messageOf(cause)}`);
  if (last) return outcome('not-mcp', `HTTP ${last.status} (${last.headers.get('content-type') ?? 'no content type'}): ${messageOf(err)}`, { httpStatus: last.status });
  return outcome('error', messageOf(cause));
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The protected-resource metadata address when the challenge names none: the path-specific
 * well-known address, then the root one (RFC 9728, MCP authorization). Kept only if it answers
 * with a metadata document.
 */
async function wellKnownMetadata(url: string, fetchOptions: () => SafeFetchOptions): Promise<string | null> {
  const u = new URL(url);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/+$/, '');
  const candidates = [...(path ? [`${u.origin}/.well-known/oauth-protected-resource${path}`] : []), `${u.origin}/.well-known/oauth-protected-resource`];
  for (const candidate of candidates) {
    try {
      const res = await safeFetch(candidate, { headers: { accept: 'application/json' } }, { ...fetchOptions(), maxBytes: 64 * 1024 });
      if (res.status !== 200) continue;
      const doc = JSON.parse(res.text()) as { resource?: unknown };
      if (doc && typeof doc.resource === 'string') return candidate;
    } catch {
      // Not there, not JSON, or not allowed: try the next address.
    }
  }
  return null;
}
