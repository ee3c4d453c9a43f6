/**
 * Real servers on loopback for the registry tests: MCP servers of both protocol eras built with
 * the official SDKs, a protected one, a plain web page, one that never answers, one that fails
 * once, and a registry speaking the real `/v0.1/servers` format.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  McpServer as ModernMcpServer,
  OAuthError,
  OAuthErrorCode,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  requireBearerAuth,
} from '@modelcontextprotocol/server';
import { McpServer as LegacyMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { closeServer, serveFetch, type Running } from './http-server.js';

export type { Running } from './http-server.js';

export interface ToolSpec {
  name: string;
  title?: string;
  description: string;
  input: z.ZodObject;
}

/** A stateless 2026-07-28 server (SDK v2, legacy traffic rejected); its tools are read on every request. */
export function modernMcp(tools: ToolSpec[]) {
  const factory = () => {
    const server = new ModernMcpServer({ name: 'modern-test', version: '1.0.0' });
    for (const t of tools) server.registerTool(t.name, { ...(t.title ? { title: t.title } : {}), description: t.description, inputSchema: t.input }, async () => ({ content: [{ type: 'text' as const, text: 'ok' }] }));
    return server;
  };
  return createMcpHandler(factory, { legacy: 'reject' });
}

export async function startModernServer(tools: ToolSpec[]): Promise<Running & { tools: ToolSpec[] }> {
  const handler = modernMcp(tools);
  const running = await serveFetch(handler.fetch);
  return { ...running, tools };
}

/** A 2025-era server (SDK 1.x, `initialize` handshake, stateless streamable HTTP). */
export async function startLegacyServer(tools: ToolSpec[]): Promise<Running> {
  const hits: string[] = [];
  const server = http.createServer(async (req, res) => {
    hits.push(`${req.method} ${req.url}`);
    const mcp = new LegacyMcpServer({ name: 'legacy-test', version: '1.0.0' });
    for (const t of tools) mcp.registerTool(t.name, { description: t.description, inputSchema: t.input.shape }, async () => ({ content: [{ type: 'text' as const, text: 'ok' }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await mcp.connect(transport);
    let body = '';
    for await (const chunk of req) body += chunk;
    await transport.handleRequest(req, res, body ? JSON.parse(body) : undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${origin}/mcp`, origin, hits, close: () => closeServer(server) };
}

/**
 * A modern server behind the SDK's Bearer gate. With `advertise`, the challenge names the
 * protected-resource metadata document; without, clients must find it at the well-known address.
 */
export async function startProtectedServer(advertise: boolean): Promise<Running & { metadataUrl: string }> {
  const handler = modernMcp([{ name: 'secret', description: 'never listed without a token', input: z.object({}) }]);
  let metadataUrl = '';
  let origin = '';
  const gate = () =>
    requireBearerAuth({
      verifier: {
        verifyAccessToken: async () => {
          throw new OAuthError(OAuthErrorCode.InvalidToken, 'no token is valid here');
        },
      },
      ...(advertise ? { resourceMetadataUrl: metadataUrl } : {}),
    });
  const running = await serveFetch(async (req) => {
    const path = new URL(req.url).pathname;
    if (path === '/.well-known/oauth-protected-resource/mcp') {
      return Response.json({ resource: `${origin}/mcp`, authorization_servers: [`${origin}/auth`], bearer_methods_supported: ['header'] });
    }
    const auth = await gate()(req);
    if (auth instanceof Response) return auth;
    return handler.fetch(req, { authInfo: auth });
  });
  origin = running.origin;
  metadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(running.url));
  return { ...running, metadataUrl };
}

/** A marketing page: HTML on GET, 405 on POST (the shape registry censuses call "not MCP"). */
export function startWebPage(): Promise<Running> {
  return serveFetch((req) =>
    req.method === 'GET'
      ? new Response('<!doctype html><title>Hello</title><h1>Our product</h1>', { headers: { 'content-type': 'text/html' } })
      : new Response('<!doctype html><h1>405</h1>', { status: 405, headers: { 'content-type': 'text/html' } }),
  );
}

/** Accepts connections and never answers. */
export async function startSilentServer(): Promise<Running> {
  const hits: string[] = [];
  const server = http.createServer((req) => {
    hits.push(`${req.method} ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${origin}/mcp`, origin, hits, close: () => closeServer(server) };
}

/** A modern server whose next `failures` requests answer 500. */
export async function startFlakyServer(tools: ToolSpec[]): Promise<Running & { fail(n: number): void }> {
  const handler = modernMcp(tools);
  let failures = 0;
  const running = await serveFetch(async (req) => {
    if (failures > 0) {
      failures--;
      return new Response('upstream exploded', { status: 500 });
    }
    return handler.fetch(req);
  });
  return { ...running, fail: (n) => (failures = n) };
}

/** A registry entry in the real listing format (mcp-and-protocols.md §1.3–1.5). */
export function listingItem(
  name: string,
  server: Record<string, unknown> = {},
  official: Record<string, unknown> = {},
): { server: Record<string, unknown>; _meta: Record<string, unknown> } {
  return {
    server: {
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      name,
      description: `The ${name} server`,
      version: '1.0.0',
      ...server,
    },
    _meta: {
      'io.modelcontextprotocol.registry/official': {
        status: 'active',
        publishedAt: '2026-05-02T09:14:11.402Z',
        updatedAt: '2026-05-02T09:14:11.402Z',
        isLatest: true,
        ...official,
      },
    },
  };
}

/**
 * A registry serving `GET /v0.1/servers?version=latest&limit=&cursor=` over `items`, ordered by
 * name, with the real cursor rule: `name:version` of the last row, only when the page is full.
 */
export async function startRegistry(items: ReturnType<typeof listingItem>[], opts: { pageSize?: number } = {}): Promise<Running & { items: typeof items }> {
  return {
    ...(await serveFetch((req) => {
      const u = new URL(req.url);
      if (u.pathname !== '/v0.1/servers') return new Response('not found', { status: 404 });
      const limit = Math.min(Number(u.searchParams.get('limit') ?? 30), opts.pageSize ?? 100);
      const sorted = [...items].sort((a, b) => String(a.server.name).localeCompare(String(b.server.name)));
      const cursor = u.searchParams.get('cursor');
      const start = cursor ? sorted.findIndex((i) => `${i.server.name}:${i.server.version}` === cursor) + 1 : 0;
      const page = sorted.slice(start, start + limit);
      const last = page.at(-1);
      const nextCursor = page.length === limit && last ? `${last.server.name}:${last.server.version}` : undefined;
      return Response.json({ servers: page, metadata: { count: page.length, ...(nextCursor ? { nextCursor } : {}) } });
    }, '')),
    items,
  };
}
