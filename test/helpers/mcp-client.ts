/** An official MCP client of either era, connected to a board over loopback, as the MCP tests use it. */
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';

export type AnyClient = {
  callTool(p: { name: string; arguments?: Record<string, unknown> }): Promise<any>;
  listTools(): Promise<{ tools: any[] }>;
  close(): Promise<void>;
  getInstructions(): string | undefined;
};

/** The 2025 era (sdk 1.x, initialize) or 2026-07-28 (client 2.x, pinned), sending `headers` with every request. */
export async function connectMcp(base: string, era: 'legacy' | 'modern', headers: Record<string, string>, fetchFn?: typeof fetch): Promise<AnyClient> {
  const init = { requestInit: { headers }, ...(fetchFn ? { fetch: fetchFn } : {}) };
  if (era === 'legacy') {
    const client = new LegacyClient({ name: 'legacy-test', version: '1.0.0' });
    await client.connect(new LegacyTransport(new URL(`${base}/mcp`), init));
    return client as unknown as AnyClient;
  }
  const client = new ModernClient({ name: 'modern-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new ModernTransport(new URL(`${base}/mcp`), init));
  return client as unknown as AnyClient;
}
