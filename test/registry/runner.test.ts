/**
 * Sync and probe rounds end to end: a local registry in the real listing format, paged, over
 * real MCP servers on loopback; verdicts, history and the kv lock through the board's own wiring.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { z } from 'zod';
import type { RegistryRunner } from '../../src/service/registry/runner.js';
import { PrivateRedis } from '../helpers/private-redis.js';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import {
  listingItem,
  startFlakyServer,
  startLegacyServer,
  startModernServer,
  startProtectedServer,
  startRegistry,
  startSilentServer,
  startWebPage,
  type Running,
  type ToolSpec,
} from '../helpers/mcp-servers.js';

const HOUR = 3_600_000;
const remote = (url: string, type = 'streamable-http') => ({ remotes: [{ type, url }] });

describe('registry runner', () => {
  let board: TestBoard;
  let runner: RegistryRunner;
  let registry: Running & { items: ReturnType<typeof listingItem>[] };
  const servers: Running[] = [];
  let modern: Running & { tools: ToolSpec[] };
  let flaky: Awaited<ReturnType<typeof startFlakyServer>>;
  let protectedServer: Awaited<ReturnType<typeof startProtectedServer>>;

  const get = (name: string) => board.services.store.registry.getServer(name);
  const kinds = async (name: string) => (await board.services.store.registry.events(name, 50)).map((e) => e.kind).reverse();

  beforeAll(async () => {
    modern = await startModernServer([
      { name: 'forecast', description: 'Forecast', input: z.object({ city: z.string() }) },
      { name: 'alerts', description: 'Alerts', input: z.object({}) },
    ]);
    flaky = await startFlakyServer([{ name: 'ping', description: 'Ping', input: z.object({}) }]);
    protectedServer = await startProtectedServer(true);
    const legacy = await startLegacyServer([{ name: 'add', description: 'Add', input: z.object({ a: z.number(), b: z.number() }) }]);
    const web = await startWebPage();
    const silent = await startSilentServer();
    servers.push(modern, flaky, protectedServer, legacy, web, silent);
    registry = await startRegistry(
      [
        listingItem('io.github.acme/weather', { title: 'Acme Weather', ...remote(modern.url) }),
        listingItem('com.example/legacy', remote(legacy.url)),
        listingItem('com.example/protected', remote(protectedServer.url)),
        listingItem('com.example/webpage', remote(web.url)),
        listingItem('com.example/silent', remote(silent.url)),
        listingItem('com.example/flaky', remote(flaky.url)),
        listingItem('com.example/tenant', remote('https://{tenant}.example.com/mcp')),
        listingItem('com.example/old-sse', remote('https://sse.example.com/sse', 'sse')),
        listingItem('com.example/stdio-only', { packages: [{ registryType: 'npm', identifier: 'x', transport: { type: 'stdio' } }] }),
        listingItem('com.example/removed', remote(modern.url), { status: 'deleted' }),
        listingItem('not a valid name', remote(modern.url)),
      ],
      { pageSize: 3 },
    );
    servers.push(registry);
    board = await makeTestBoard({ REGISTRY_URL: registry.origin, ALLOW_PRIVATE_NETWORK: 'true', PROBE_TIMEOUT_MS: '800' });
    runner = board.registryRunner!;
  });
  afterAll(async () => {
    await board.dispose();
    await Promise.all(servers.map((s) => s.close()));
  });

  it('syncs every page and probes every due server once', async () => {
    const result = await runner.cycle();
    expect(result.ran).toBe(true);
    if (!result.ran) return;
    expect(result.sync).toMatchObject({ pages: 4, entries: 10, firstSeen: 10, skipped: 1 });
    expect(result.probes.probed).toBe(6);
    expect(registry.hits.filter((h) => h.startsWith('GET /v0.1/servers'))).toHaveLength(4);

    expect(await get('io.github.acme/weather')).toMatchObject({ title: 'Acme Weather', verdict: 'working', toolCount: 2, protocolVersion: '2026-07-28' });
    expect(await get('com.example/legacy')).toMatchObject({ verdict: 'working', toolCount: 1 });
    expect(await get('com.example/protected')).toMatchObject({ verdict: 'needs-auth', authScheme: 'Bearer', authMetadataUrl: protectedServer.metadataUrl, httpStatus: 401 });
    expect(await get('com.example/webpage')).toMatchObject({ verdict: 'unverified', outcome: 'not-mcp' });
    expect(await get('com.example/silent')).toMatchObject({ verdict: 'unverified', outcome: 'timeout' });
    expect(await get('com.example/tenant')).toMatchObject({ verdict: 'unverified', outcome: 'template-url', checkedAt: null, nextProbeAt: null });
    expect(await get('com.example/old-sse')).toMatchObject({ verdict: 'unverified', outcome: 'sse-remote' });
    expect(await get('com.example/stdio-only')).toMatchObject({ outcome: 'no-remote', remote: null });
    expect(await get('com.example/removed')).toBeNull();

    expect(await kinds('io.github.acme/weather')).toEqual(['first-seen', 'became-working']);
    expect(await kinds('com.example/protected')).toEqual(['first-seen', 'auth-required']);
    expect(await kinds('com.example/webpage')).toEqual(['first-seen']);
    expect(await board.services.store.registry.verdictCounts()).toEqual({ working: 3, 'needs-auth': 1, unverified: 5 });
  });

  it('records tools added and removed, and holds Working through one failed probe', async () => {
    modern.tools.splice(1, 1, { name: 'radar', description: 'Radar images', input: z.object({ region: z.string() }) });
    flaky.fail(1);
    board.clock.advance(2 * HOUR);
    const result = await runner.cycle();
    expect(result.ran && result.probes.probed).toBe(6);

    const events = await board.services.store.registry.events('io.github.acme/weather', 10);
    expect(events.slice(0, 2).map((e) => [e.kind, e.names])).toEqual([
      ['tools-removed', ['alerts']],
      ['tools-added', ['radar']],
    ]);
    const tools = await board.services.store.registry.tools('io.github.acme/weather', false);
    expect(tools.map((t) => [t.name, t.present])).toEqual([
      ['alerts', false],
      ['forecast', true],
      ['radar', true],
    ]);
    expect(await get('com.example/flaky')).toMatchObject({ verdict: 'working', failStreak: 1, outcome: 'server-error', httpStatus: 500 });
    // One failure brings the confirming probe forward.
    const flakyRecord = await get('com.example/flaky');
    expect(flakyRecord!.nextProbeAt! - board.clock.now()).toBe(600_000);
  });

  it('clears a single failure on the next success and stops Working after two in a row', async () => {
    board.clock.advance(11 * 60_000);
    await runner.cycle();
    expect(await get('com.example/flaky')).toMatchObject({ verdict: 'working', failStreak: 0, outcome: 'working' });

    flaky.fail(1000);
    board.clock.advance(2 * HOUR);
    await runner.cycle();
    expect((await get('com.example/flaky'))!.verdict).toBe('working');
    board.clock.advance(11 * 60_000);
    await runner.cycle();
    expect(await get('com.example/flaky')).toMatchObject({ verdict: 'unverified', failStreak: 2 });
    expect(await kinds('com.example/flaky')).toEqual(['first-seen', 'became-working', 'stopped-working']);
    flaky.fail(0);
  });

  it('skips the round while another process holds the lock', async () => {
    const kv = board.services.kv;
    expect(await kv.lock('registry:runner', 'another-process', 60_000, board.clock.now())).toBe(true);
    expect(await runner.cycle()).toEqual({ ran: false, reason: 'locked' });
    await kv.unlock('registry:runner', 'another-process');
  });

  it('drops servers that leave the listing, on the next sync', async () => {
    registry.items.splice(
      registry.items.findIndex((i) => i.server.name === 'com.example/webpage'),
      1,
    );
    board.clock.advance(2 * HOUR);
    const result = await runner.cycle();
    expect(result.ran && result.sync).toMatchObject({ entries: 9, firstSeen: 0, unlisted: 1 });
    expect(await get('com.example/webpage')).toBeNull();
  });
});

describe('registry runners in several processes', () => {
  it('elect one runner through the shared Redis lock', async () => {
    const modern = await startModernServer([{ name: 'echo', description: 'Echo', input: z.object({}) }]);
    const registry = await startRegistry([listingItem('com.example/shared', remote(modern.url))]);
    const env = { REGISTRY_URL: registry.origin, ALLOW_PRIVATE_NETWORK: 'true', REDIS_URL: 'redis://127.0.0.1:6379' };
    // The sync marker lives in the shared kv: start from none, and leave none for the next run.
    const redis = new Redis('redis://127.0.0.1:6379');
    const clear = () => redis.del('agentboard:registry:synced', 'agentboard:registry:runner');
    await clear();
    const [one, two] = await Promise.all([makeTestBoard(env), makeTestBoard(env)]);
    try {
      const results = await Promise.all([one.registryRunner!.cycle(), two.registryRunner!.cycle()]);
      expect(results.filter((r) => r.ran)).toHaveLength(1);
      expect(results.filter((r) => !r.ran)).toEqual([{ ran: false, reason: 'locked' }]);
      expect(registry.hits).toHaveLength(1);
    } finally {
      await Promise.all([one.dispose(), two.dispose()]);
      await Promise.all([modern.close(), registry.close()]);
      await clear();
      await redis.quit();
    }
  });
});

describe('a registry runner when Redis is down', () => {
  it('skips its rounds while the lock cannot be checked, and runs again once Redis is back', async () => {
    const modern = await startModernServer([{ name: 'echo', description: 'Echo', input: z.object({}) }]);
    const registry = await startRegistry([listingItem('com.example/outage', remote(modern.url))]);
    const redis = await PrivateRedis.start();
    const board = await makeTestBoard({ REGISTRY_URL: registry.origin, ALLOW_PRIVATE_NETWORK: 'true', REDIS_URL: redis.url });
    try {
      await redis.kill();
      // No instance can know it holds the lock: none syncs or probes (fail closed), and nothing breaks.
      expect(await board.registryRunner!.cycle()).toEqual({ ran: false, reason: 'kv-error' });
      expect(registry.hits).toHaveLength(0);
      await redis.start();
      let result = await board.registryRunner!.cycle();
      for (let i = 0; i < 50 && !result.ran; i++) {
        await new Promise((r) => setTimeout(r, 100));
        result = await board.registryRunner!.cycle();
      }
      expect(result.ran).toBe(true);
      expect(registry.hits.length).toBeGreaterThan(0);
    } finally {
      await board.dispose();
      await redis.kill();
      await Promise.all([modern.close(), registry.close()]);
    }
  });
});

describe('registry runner shutdown', () => {
  it('stops a probe in flight without recording it as an observation', async () => {
    const silent = await startSilentServer();
    const registry = await startRegistry([listingItem('com.example/silent', remote(silent.url))]);
    const board = await makeTestBoard({ REGISTRY_URL: registry.origin, ALLOW_PRIVATE_NETWORK: 'true', PROBE_TIMEOUT_MS: '60000' });
    try {
      const cycle = board.registryRunner!.cycle();
      while (silent.hits.length === 0) await new Promise((r) => setTimeout(r, 20));
      await board.registryRunner!.stop();
      const result = await cycle;
      expect(result.ran && result.probes.probed).toBe(0);
      expect(await board.services.store.registry.getServer('com.example/silent')).toMatchObject({ checkedAt: null, outcome: 'never-probed' });
      expect(await board.registryRunner!.cycle()).toEqual({ ran: false, reason: 'stopped' });
    } finally {
      await board.dispose();
      await Promise.all([silent.close(), registry.close()]);
    }
  });
});

describe('registry runner with private networks refused', () => {
  it('refuses a registry on a loopback address and records nothing', async () => {
    const registry = await startRegistry([listingItem('com.example/x', remote('https://x.example/mcp'))]);
    const board = await makeTestBoard({ REGISTRY_URL: registry.origin });
    try {
      const result = await board.registryRunner!.cycle();
      expect(result.ran && result.sync).toBeNull();
      expect(registry.hits).toEqual([]);
      expect((await board.services.store.registry.listServers({ limit: 10, offset: 0 })).total).toBe(0);
    } finally {
      await board.dispose();
      await registry.close();
    }
  });

  it('has no runner when REGISTRY_URL=off', async () => {
    const board = await makeTestBoard({ REGISTRY_URL: 'off' });
    expect(board.registryRunner).toBeNull();
    await board.dispose();
  });
});
