/** Registry records as JSON: the server list, one server, one tool (docs/decisions.md, Registry record pages). */
import type { ApiDeps } from '../settings.js';
import { ServerParams, ToolParams } from '../../schemas/query.js';
import { ServerEnvelope, ServerListEnvelope, ServersQuery, ToolEnvelope } from '../../schemas/registry.js';
import type { Router } from '../../web/router.js';
import { meta, parseParams, parseQuery } from '../../web/request.js';
import { htmlOrJson, problemResponses } from '../../web/openapi.js';
import { json } from '../../web/response-headers.js';

export function registerServerRoutes(router: Router, s: ApiDeps): void {
  router.route(
    {
      method: 'get',
      path: '/servers',
      summary: 'Remote MCP servers from the registry, with probe verdicts',
      tags: ['servers'],
      request: { query: ServersQuery },
      responses: { 200: htmlOrJson(ServerListEnvelope, 'Servers, 50 a page, by name'), ...problemResponses(400, 429) },
    },
    async (c) => json(c, { ...(await s.registry.list(parseQuery(c, ServersQuery), c.get('baseUrl'))), meta: meta(c) }),
  );

  router.route(
    {
      method: 'get',
      path: '/servers/{namespace}/{name}',
      summary: 'One server’s record: verdict, tools, history, connect snippets, experience reports',
      tags: ['servers'],
      request: { params: ServerParams },
      responses: { 200: htmlOrJson(ServerEnvelope, 'The server record'), ...problemResponses(404, 429) },
    },
    async (c) => {
      const { namespace, name } = parseParams(c, ServerParams);
      return json(c, { server: await s.registry.server(namespace, name, c.get('baseUrl')), meta: meta(c) });
    },
  );

  router.route(
    {
      method: 'get',
      path: '/servers/{namespace}/{name}/tools/{tool}',
      summary: 'One tool of a server: description and input schema',
      tags: ['servers'],
      request: { params: ToolParams },
      responses: { 200: htmlOrJson(ToolEnvelope, 'The tool'), ...problemResponses(404, 429) },
    },
    async (c) => {
      const p = parseParams(c, ToolParams);
      const { tool } = await s.registry.tool(p.namespace, p.name, p.tool, c.get('baseUrl'));
      return json(c, { tool, meta: meta(c) });
    },
  );
}
