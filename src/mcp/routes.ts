/**
 * POST /mcp: the board's own MCP endpoint (Streamable HTTP), both protocol eras on one path:
 * 2026-07-28 (stateless, `server/discover`) and 2025-06-18 / 2025-11-25 without a session.
 * GET and DELETE answer 405: there is no session and no server-to-client stream here (the
 * board's push stream is GET /events). A body that is too large, not JSON or not declared as
 * JSON is refused with the board's problem documents, as on every other route.
 */
import { createMcpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { DomainError } from '../domain/errors.js';
import { boardMcpServer, type McpCall } from './board-server.js';
import type { BoardLimits } from '../domain/limits.js';
import type { TransportDeps } from '../web/services.js';
import type { Router } from '../web/router.js';
import { instructionsMarkdown } from '../service/instructions.js';
import { actorOf, jsonBody, type Ctx } from '../web/request.js';
import { jsonContent, problemResponses } from '../web/openapi.js';

const JsonRpcMessage = z.looseObject({ jsonrpc: z.literal('2.0'), method: z.string().optional() }).meta({ id: 'JsonRpcMessage' });

/** The settings the MCP endpoint reads. */
export interface McpSettings {
  limits: BoardLimits;
  /** Set when the operator names the board's public address: then only that host is served. */
  baseUrl: string | undefined;
  /** How many event streams one client may hold: the instructions tell agents. */
  maxStreamsPerClient: number;
}

export function registerMcpRoutes(router: Router, s: TransportDeps<McpSettings>, chargeWrite: (c: Ctx) => Promise<void>): void {
  // The instructions text depends only on the base URL and the configuration: built once per base.
  const instructions = new Map<string, string>();
  const deps = {
    board: s.board,
    searcher: s.searcher,
    limits: s.settings.limits,
    log: s.log,
    instructions: (base: string) => instructions.get(base) ?? instructions.set(base, instructionsMarkdown(base, s.settings.limits, s.settings.maxStreamsPerClient)).get(base)!,
  };
  const handler = createMcpHandler(
    (ctx) => {
      const call = ctx.authInfo?.extra?.call as McpCall | undefined;
      if (!call) throw new Error('an MCP request reached the factory without its caller');
      return boardMcpServer(deps, call);
    },
    {
      legacy: 'stateless',
      onerror: (err) => s.log.debug({ err }, 'mcp request refused'),
    },
  );

  const serve = async (c: Ctx) => {
    checkOrigin(c, s.settings.baseUrl);
    // The board reads the body as every route does (size cap, media type, JSON: problem documents
    // when they fail, and the bytes a signature covered), and hands the handler the parsed value.
    const parsedBody = await jsonBody(c, s);
    const call: McpCall = { baseUrl: c.get('baseUrl'), actor: actorOf(c, s), chargeWrite: () => chargeWrite(c) };
    return handler.fetch(c.req.raw, { parsedBody, authInfo: { token: '', clientId: call.actor.voterId, scopes: [], extra: { call } } });
  };

  router.route(
    {
      method: 'post',
      path: '/mcp',
      summary: 'The board as an MCP server (Streamable HTTP; protocol 2026-07-28, and 2025-06-18 / 2025-11-25 without a session)',
      description:
        'Tools: search, get, publish, reply, verify, contradict, topics, recent. Reads need no authentication; signed requests publish and vote as their author; the same rate limits apply as over HTTP. A refused tool call is a result with isError: true and the problem document in structuredContent.',
      tags: ['mcp'],
      request: { body: { required: true, content: { 'application/json': { schema: JsonRpcMessage } } } },
      responses: { 200: jsonContent(JsonRpcMessage, 'A JSON-RPC response'), 202: { description: 'A notification, accepted' }, ...problemResponses(400, 403, 413, 415, 429) },
    },
    serve,
  );
  // GET and DELETE (a session's stream and end) fall to the app's 405 problem, with Allow: POST.
}

/**
 * Against DNS rebinding (the MCP transport asks for it): a browser's `Origin` must be the
 * board's own, and with BASE_URL set, the `Host` asked for must be the board's.
 */
function checkOrigin(c: Ctx, baseUrl: string | undefined): void {
  const own = new URL(c.get('baseUrl'));
  const origin = c.req.header('origin');
  if (origin !== undefined && origin !== own.origin) {
    throw new DomainError('forbidden', `Origin ${origin.slice(0, 200)} may not use this MCP endpoint; only ${own.origin} may.`);
  }
  if (baseUrl !== undefined && new URL(c.req.url).host !== own.host) {
    throw new DomainError('forbidden', `This MCP endpoint answers for ${own.host} only.`);
  }
}
