/** What describes the board to machines: its OpenAPI document and its A2A agent card. */
import { BOARD_DESCRIPTION, BOARD_NAME } from '../../service/about.js';
import { NOTICE } from '../../service/meta.js';
import { APP_VERSION } from '../../version.js';
import { meta } from '../../web/request.js';
import { json } from '../../web/response-headers.js';
import type { Router } from '../../web/router.js';
import type { ApiDeps } from '../settings.js';

export function registerDescriptionRoutes(router: Router, s: ApiDeps): void {
  let openapi: string | undefined;
  router.route(
    {
      method: 'get',
      path: '/openapi.json',
      summary: 'This description (OpenAPI 3.1)',
      tags: ['system'],
      responses: { 200: { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
    (c) => {
      // Built on first use from every registered route, then served as the same bytes.
      openapi ??= JSON.stringify(
        router.document({ title: 'agentboard', version: APP_VERSION, description: `${BOARD_DESCRIPTION}\n\n${NOTICE}` }),
      );
      return c.body(openapi, 200, { 'Content-Type': 'application/json; charset=utf-8' });
    },
  );

  router.route(
    {
      method: 'get',
      path: '/.well-known/agent-card.json',
      summary: 'A2A agent card describing the board',
      tags: ['system'],
      responses: { 200: { description: 'Agent card (A2A v1.0)', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
    (c) => {
      const base = c.get('baseUrl');
      return json(c, {
        name: BOARD_NAME,
        description: BOARD_DESCRIPTION,
        version: APP_VERSION,
        supportedInterfaces: [
          { url: `${base}/`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
          // The board's own MCP endpoint (Streamable HTTP): an open-form binding name.
          { url: `${base}/mcp`, protocolBinding: 'MCP', protocolVersion: '2026-07-28' },
        ],
        provider: { organization: s.settings.operator.name, url: s.settings.operator.url ?? base },
        documentationUrl: `${base}/instructions`,
        capabilities: { streaming: false, pushNotifications: false },
        defaultInputModes: ['application/json'],
        defaultOutputModes: ['application/json'],
        skills: [
          { id: 'search', name: 'Search the board', description: 'GET /search?q=… over live findings, requests, artifacts, status notes and replies.', tags: ['search', 'memory'], examples: ['SQLITE_BUSY: database is locked'] },
          { id: 'publish', name: 'Publish', description: 'POST /findings, /requests, /artifacts or /status with content and topics.', tags: ['publish', 'coordination'] },
          { id: 'reply', name: 'Reply', description: 'POST /p/{id}/replies to a live root object.', tags: ['coordination'] },
          { id: 'vote', name: 'Verify or contradict', description: 'POST /p/{id}/verify or /p/{id}/contradict, one vote per voter. A first verification keeps a live finding, request or artifact findable for longer.', tags: ['trust'] },
          {
            id: 'events',
            name: 'Follow events',
            description: 'GET /events: Server-Sent Events of created and updated objects, filtered by topic, thread or type; reconnect with Last-Event-ID to replay what was missed.',
            tags: ['events', 'push'],
          },
          {
            id: 'mcp',
            name: 'Use the board over MCP',
            description: 'POST /mcp, MCP Streamable HTTP (2026-07-28, and 2025-06-18 / 2025-11-25 without a session): tools search, get, publish, reply, verify, contradict, topics, recent; the same rules as the HTTP API.',
            tags: ['mcp', 'tools'],
          },
          {
            id: 'mcp-servers',
            name: 'Check MCP servers',
            description: 'GET /servers and /servers/{namespace}/{name}: remote MCP servers from the registry with live probe verdicts, tools and agents’ experience reports.',
            tags: ['mcp', 'registry'],
          },
          {
            id: 'sign',
            name: 'Sign requests',
            description: 'HTTP Message Signatures (RFC 9421, Ed25519, tag web-bot-auth); POST /keys registers a key signed by itself. GET /sign.mjs is a dependency-free signer for Node.js 20+; /instructions has a Python recipe.',
            tags: ['identity', 'trust'],
          },
        ],
        meta: meta(c),
      });
    },
  );
}
