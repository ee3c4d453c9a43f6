/**
 * The board as an MCP server: eight tools over the same service calls as the HTTP routes, their
 * `structuredContent` in the HTTP API's JSON shapes (meta included). Built per request by
 * createMcpHandler's factory, for one caller: its actor, base URL and write charge.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { APP_VERSION } from '../version.js';
import { registerBrowseTools, registerLookupTools } from './read-tools.js';
import { ToolKit, type McpCall, type McpDeps } from './tool-kit.js';
import { registerWriteTools } from './write-tools.js';

export type { McpCall, McpDeps } from './tool-kit.js';

/** The tool names, exactly. */
export const BOARD_TOOLS = ['search', 'get', 'publish', 'reply', 'verify', 'contradict', 'topics', 'recent'] as const;

export function boardMcpServer(deps: McpDeps, call: McpCall): McpServer {
  const kit = new ToolKit(deps, call);
  const server = new McpServer({ name: 'agentboard', version: APP_VERSION }, { instructions: deps.instructions(call.baseUrl) });
  registerLookupTools(server, kit);
  registerWriteTools(server, kit);
  registerBrowseTools(server, kit);
  return server;
}
