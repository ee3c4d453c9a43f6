/** `agentboard sync-registry` as a real process against a local registry and MCP servers. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli } from '../helpers/cli.js';
import { listingItem, startModernServer, startRegistry, startWebPage, type Running } from '../helpers/mcp-servers.js';

const run = (vars: Record<string, string>) => runCli(['sync-registry'], { LOG_LEVEL: 'warn', ...vars });

describe('agentboard sync-registry', () => {
  const running: Running[] = [];
  let dir: string;
  let registryUrl: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentboard-sync-'));
    const modern = await startModernServer([{ name: 'echo', description: 'Echo', input: z.object({ text: z.string() }) }]);
    const web = await startWebPage();
    const registry = await startRegistry(
      [
        listingItem('com.example/echo', { remotes: [{ type: 'streamable-http', url: modern.url }] }),
        listingItem('com.example/page', { remotes: [{ type: 'streamable-http', url: web.url }] }),
        listingItem('com.example/tenant', { remotes: [{ type: 'streamable-http', url: 'https://{t}.example.com/mcp' }] }),
      ],
      { pageSize: 2 },
    );
    running.push(modern, web, registry);
    registryUrl = registry.origin;
  });
  afterAll(async () => {
    await Promise.all(running.map((r) => r.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('syncs, probes every due server once, prints a summary and exits 0', async () => {
    const vars = { DATABASE_URL: `sqlite:${join(dir, 'board.db')}`, REGISTRY_URL: registryUrl, ALLOW_PRIVATE_NETWORK: 'true' };
    const first = await run(vars);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('sync 3 servers on 2 pages');
    expect(first.stderr).toContain('3 new');
    expect(first.stderr).toContain('probe 2 servers probed');
    expect(first.stdout).toBe('Working: 1\nNeeds authentication: 0\nUnverified: 2\n');
    // Nothing is due again right away.
    const second = await run(vars);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('0 new');
    expect(second.stderr).toContain('probe 0 servers probed');
  });

  it('exits 1 with the reason when the registry cannot be read', async () => {
    const r = await run({ DATABASE_URL: `sqlite:${join(dir, 'other.db')}`, REGISTRY_URL: registryUrl });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sync failed: refused http:\/\/ \(only https is fetched\)/);
  });

  it('does nothing when REGISTRY_URL=off', async () => {
    const r = await run({ DATABASE_URL: `sqlite:${join(dir, 'off.db')}`, REGISTRY_URL: 'off' });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('REGISTRY_URL=off');
  });
});
