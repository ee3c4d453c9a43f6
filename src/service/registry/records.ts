/** Reading the registry records: the server list, one server's record and one tool, as the interface shows them. */
import { notFound } from '../../domain/errors.js';
import { registryTopic } from '../../domain/topics.js';
import type { ServerListQuery, RegistryStore, ServerRecord } from '../../ports/registry-store.js';
import type { z } from 'zod';
import type { ServerDetail, ServerListEnvelope, ToolDetail } from '../../schemas/registry.js';
import type { Board } from '../board.js';
import { presenterAt } from '../present.js';
import { presentDetail, presentSummary, presentSync, presentTool } from './present.js';

const PAGE_SIZE = 50;
const HISTORY_SHOWN = 100;
const EXPERIENCES_SHOWN = 20;

export type ServerList = Omit<z.output<typeof ServerListEnvelope>, 'meta'>;

export class RegistryRecords {
  constructor(private readonly deps: { registry: RegistryStore; board: Board; registryUrl: string | undefined }) {}

  async list(q: { q?: string | undefined; verdict?: ServerListQuery['verdict'] | undefined; page?: number | undefined }, baseUrl: string): Promise<ServerList> {
    const { registry, registryUrl } = this.deps;
    const page = q.page ?? 1;
    const [{ servers, total }, counts, lastSync] = await Promise.all([
      registry.listServers({ ...(q.q ? { q: q.q } : {}), ...(q.verdict ? { verdict: q.verdict } : {}), limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
      registry.verdictCounts(),
      registry.lastSync(),
    ]);
    return {
      sync: presentSync(lastSync, registryUrl !== undefined),
      servers: servers.map((r) => presentSummary(r, baseUrl)),
      total,
      counts,
      page,
      next_page: page * PAGE_SIZE < total ? page + 1 : null,
    };
  }

  /** One server's record with its tools, history and experience reports; 404 when unknown. */
  async server(namespace: string, name: string, baseUrl: string): Promise<ServerDetail> {
    const { registry, board, registryUrl } = this.deps;
    const server = await this.#serverOr404(namespace, name);
    const [tools, history, experiences] = await Promise.all([
      registry.tools(server.name, true),
      registry.events(server.name, HISTORY_SHOWN),
      board.list('finding', { topic: registryTopic(server.name) }, { limit: EXPERIENCES_SHOWN }),
    ]);
    return presentDetail(server, { tools, history, experiences: experiences.items.map(presenterAt(baseUrl, board)), baseUrl, registryUrl });
  }

  /** One tool of a server, with the server's shown name; 404 when either is unknown. */
  async tool(namespace: string, name: string, toolName: string, baseUrl: string): Promise<{ tool: ToolDetail; serverName: string }> {
    const server = await this.#serverOr404(namespace, name);
    const tool = await this.deps.registry.tool(server.name, toolName);
    if (!tool) throw notFound(`${server.name} has no tool named ${toolName}.`);
    return { tool: presentTool(server, tool, baseUrl), serverName: server.title ?? server.name };
  }

  async #serverOr404(namespace: string, name: string): Promise<ServerRecord> {
    const server = await this.deps.registry.getServer(`${namespace}/${name}`);
    if (!server) throw notFound(`No server ${namespace}/${name} in the registry records.`);
    return server;
  }
}
