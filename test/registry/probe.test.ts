/** Probes against real MCP servers on loopback, both protocol eras, no stubs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { probeServer, type ProbeOptions } from '../../src/service/registry/probe.js';
import {
  startFlakyServer,
  startLegacyServer,
  startModernServer,
  startProtectedServer,
  startSilentServer,
  startWebPage,
  type Running,
  type ToolSpec,
} from '../helpers/mcp-servers.js';

const opts: ProbeOptions = { timeoutMs: 3000, maxBytes: 1024 * 1024, allowPrivateNetwork: true, maxTools: 100, version: 'test' };

const TOOLS: ToolSpec[] = [
  { name: 'forecast', title: 'Weather forecast', description: 'Forecast for a city', input: z.object({ city: z.string().describe('City name'), days: z.number().int().optional() }) },
  { name: 'alerts', description: 'Active alerts', input: z.object({}) },
];

describe('probeServer', () => {
  const servers: Running[] = [];
  const start = async <T extends Running>(s: Promise<T>) => {
    const r = await s;
    servers.push(r);
    return r;
  };
  afterAll(async () => Promise.all(servers.map((s) => s.close())));

  it('lists the tools of a stateless 2026-07-28 server', async () => {
    const s = await start(startModernServer(TOOLS));
    const o = await probeServer(s.url, opts);
    expect(o.kind).toBe('working');
    expect(o.protocolVersion).toBe('2026-07-28');
    expect(o.toolCount).toBe(2);
    const forecast = o.tools!.find((t) => t.name === 'forecast')!;
    expect(forecast.title).toBe('Weather forecast');
    expect(forecast.description).toBe('Forecast for a city');
    const schema = JSON.parse(forecast.inputSchema);
    expect(schema.properties.city).toMatchObject({ type: 'string', description: 'City name' });
    expect(schema.required).toEqual(['city']);
    // Never a tool call, never a GET stream.
    expect(s.hits.every((h) => h.startsWith('POST '))).toBe(true);
  });

  it('falls back to the initialize handshake for a 2025-era server', async () => {
    const s = await start(startLegacyServer(TOOLS));
    const o = await probeServer(s.url, opts);
    expect(o.kind).toBe('working');
    expect(o.protocolVersion).toMatch(/^2025-/);
    expect(o.tools!.map((t) => t.name).sort()).toEqual(['alerts', 'forecast']);
  });

  it('reads the Bearer challenge and its protected-resource metadata address', async () => {
    const s = await start(startProtectedServer(true));
    const o = await probeServer(s.url, opts);
    expect(o).toMatchObject({ kind: 'auth-required', httpStatus: 401, auth: { scheme: 'Bearer', metadataUrl: s.metadataUrl } });
    expect(o.tools).toBeNull();
  });

  it('finds the metadata at the well-known address when the challenge names none', async () => {
    const s = await start(startProtectedServer(false));
    const o = await probeServer(s.url, opts);
    expect(o).toMatchObject({ kind: 'auth-required', auth: { scheme: 'Bearer', metadataUrl: `${s.origin}/.well-known/oauth-protected-resource/mcp` } });
  });

  it('calls a plain web page not MCP', async () => {
    const s = await start(startWebPage());
    const o = await probeServer(s.url, opts);
    expect(o.kind).toBe('not-mcp');
    expect(o.httpStatus).toBe(405);
  });

  it('gives up on a server that never answers within the budget', async () => {
    const s = await start(startSilentServer());
    const started = Date.now();
    const o = await probeServer(s.url, { ...opts, timeoutMs: 600 });
    expect(o.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('reports a 5xx as a server error', async () => {
    const s = await start(startFlakyServer(TOOLS));
    s.fail(10);
    const o = await probeServer(s.url, opts);
    expect(o).toMatchObject({ kind: 'server-error', httpStatus: 500 });
  });

  it('refuses a loopback target unless private networks are allowed, without sending a packet', async () => {
    const s = await start(startModernServer(TOOLS));
    const o = await probeServer(s.url, { ...opts, allowPrivateNetwork: false });
    expect(o.kind).toBe('refused');
    expect(s.hits).toEqual([]);
    const named = await probeServer(s.url.replace('127.0.0.1', 'localhost'), { ...opts, allowPrivateNetwork: false });
    expect(named.kind).toBe('refused');
    expect(s.hits).toEqual([]);
  });

  it('reports an address nobody listens on as unreachable', async () => {
    const s = await startModernServer(TOOLS);
    await s.close();
    const o = await probeServer(s.url, opts);
    expect(o.kind).toBe('unreachable');
  });
});

describe('probe limits', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startModernServer(Array.from({ length: 30 }, (_, i) => ({ name: `tool_${String(i).padStart(2, '0')}`, description: 'x'.repeat(200), input: z.object({}) })));
  });
  afterAll(() => s.close());

  it('keeps at most maxTools tools but counts them all', async () => {
    const o = await probeServer(s.url, { ...opts, maxTools: 5 });
    expect(o.toolCount).toBe(30);
    expect(o.tools).toHaveLength(5);
  });

  it('stops reading an answer over the size cap', async () => {
    const o = await probeServer(s.url, { ...opts, maxBytes: 2000 });
    expect(o.kind).toBe('error');
    expect(o.detail).toMatch(/over 2000 bytes/);
  });
});
