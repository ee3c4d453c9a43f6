/** Registry record pages (spec §2.11): the server list, one server, one tool — HTML or JSON. */
import { z } from 'zod';
import type { AppServices } from '../services.js';
import { notFound } from '../../domain/errors.js';
import { registryTopic } from '../../domain/topics.js';
import { renderServerPage, renderServersPage, renderToolPage } from '../../html/pages/server-pages.js';
import { presentDetail, presentSummary, presentSync, presentTool } from '../../registry/present.js';
import { ServerEnvelope, ServerListEnvelope, ServersQuery, ToolEnvelope } from '../../schemas/registry.js';
import type { Router } from '../router.js';
import { htmlOrJson, htmlRequested, meta, parseParams, parseQuery, presenter, problemResponses } from './shared.js';
import { json } from '../response-headers.js';

const PAGE_SIZE = 50;
const HISTORY_SHOWN = 100;
const EXPERIENCES_SHOWN = 20;

const ServerParams = z.object({ namespace: z.string().max(200), name: z.string().max(200) });
const ToolParams = ServerParams.extend({ tool: z.string().max(200) });

export function registerServerRoutes(router: Router, s: AppServices): void {
  const registry = s.store.registry;

  const serverOr404 = async ({ namespace, name }: z.output<typeof ServerParams>) => {
    const server = await registry.getServer(`${namespace}/${name}`);
    if (!server) throw notFound(`No server ${namespace}/${name} in the registry records.`);
    return server;
  };

  router.route(
    {
      method: 'get',
      path: '/servers',
      summary: 'Remote MCP servers from the registry, with probe verdicts',
      tags: ['servers'],
      request: { query: ServersQuery },
      responses: { 200: htmlOrJson(ServerListEnvelope, 'Servers, 50 a page, by name'), ...problemResponses(400, 429) },
    },
    async (c) => {
      const html = htmlRequested(c);
      const q = parseQuery(c, ServersQuery);
      const page = q.page ?? 1;
      const [{ servers, total }, counts, lastSync] = await Promise.all([
        registry.listServers({ ...(q.q ? { q: q.q } : {}), ...(q.verdict ? { verdict: q.verdict } : {}), limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
        registry.verdictCounts(),
        registry.lastSync(),
      ]);
      const view = {
        sync: presentSync(lastSync, s.config.registry.url !== undefined),
        servers: servers.map((r) => presentSummary(r, c.get('baseUrl'))),
        total,
        counts,
        page,
        next_page: page * PAGE_SIZE < total ? page + 1 : null,
      };
      if (html) return c.html(renderServersPage({ now: s.clock.now(), ...view, q: q.q ?? '', verdict: q.verdict ?? null }));
      return json(c, { ...view, meta: meta(c) });
    },
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
      const html = htmlRequested(c);
      const server = await serverOr404(parseParams(c, ServerParams));
      const [tools, history, experiences] = await Promise.all([
        registry.tools(server.name, true),
        registry.events(server.name, HISTORY_SHOWN),
        s.board.list('finding', { topic: registryTopic(server.name) }, { limit: EXPERIENCES_SHOWN }),
      ]);
      const detail = presentDetail(server, {
        tools,
        history,
        experiences: experiences.items.map(presenter(c, s)),
        baseUrl: c.get('baseUrl'),
        registryUrl: s.config.registry.url,
      });
      if (html) return c.html(renderServerPage({ now: s.clock.now(), server: detail }));
      return json(c, { server: detail, meta: meta(c) });
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
      const html = htmlRequested(c);
      const params = parseParams(c, ToolParams);
      const server = await serverOr404(params);
      const tool = await registry.tool(server.name, params.tool);
      if (!tool) throw notFound(`${server.name} has no tool named ${params.tool}.`);
      const view = presentTool(server, tool, c.get('baseUrl'));
      if (html) return c.html(renderToolPage({ now: s.clock.now(), tool: view, serverName: server.title ?? server.name }));
      return json(c, { tool: view, meta: meta(c) });
    },
  );
}
