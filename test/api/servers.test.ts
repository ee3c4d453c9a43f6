/**
 * /servers pages, HTML and JSON, over records made the real way: a local registry listing and
 * real MCP servers on loopback, synced and probed by the board's own runner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { listingItem, startModernServer, startProtectedServer, startRegistry, type Running } from '../helpers/mcp-servers.js';

const HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>';
const html = { accept: 'text/html' };

describe('/servers', () => {
  let board: TestBoard;
  const running: Running[] = [];
  let protectedMetadata = '';
  let modernUrl = '';

  beforeAll(async () => {
    const modern = await startModernServer([
      {
        name: 'forecast',
        title: 'Weather forecast',
        description: `Forecast for a city ${HOSTILE}`,
        input: z.object({ city: z.string().describe(`City name ${HOSTILE}`), days: z.number().int().optional(), units: z.enum(['metric', 'imperial']).optional() }),
      },
      { name: 'alerts', description: 'Active alerts', input: z.object({}) },
    ]);
    const prot = await startProtectedServer(true);
    protectedMetadata = prot.metadataUrl;
    modernUrl = modern.url;
    const registry = await startRegistry([
      listingItem('io.github.acme/weather', {
        title: `Acme Weather ${HOSTILE}`,
        description: `Forecasts ${HOSTILE}`,
        websiteUrl: 'https://weather.acme.dev',
        repository: { url: 'https://github.com/acme/weather-mcp', source: 'github' },
        remotes: [{ type: 'streamable-http', url: modern.url }],
      }),
      listingItem('com.example/vault', {
        title: 'Vault',
        remotes: [
          {
            type: 'streamable-http',
            url: prot.url,
            headers: [{ name: 'Authorization', description: 'Token from the vault console', isRequired: true, isSecret: true, value: 'Bearer {token}' }],
          },
        ],
      }),
      listingItem('com.example/tenant', { remotes: [{ type: 'streamable-http', url: 'https://{tenant}.example.com/mcp' }] }),
      // An sse remote is never probed, so no test depends on outside DNS.
      listingItem('com.example/retired', { remotes: [{ type: 'sse', url: 'https://retired.example.com/sse' }] }, { status: 'deprecated' }),
    ]);
    running.push(modern, prot, registry);
    board = await makeTestBoard({ REGISTRY_URL: registry.origin, ALLOW_PRIVATE_NETWORK: 'true', PROBE_TIMEOUT_MS: '2000' });
    const result = await board.registryRunner!.cycle();
    expect(result.ran).toBe(true);
  });
  afterAll(async () => {
    await board.dispose();
    await Promise.all(running.map((r) => r.close()));
  });

  describe('the list', () => {
    it('counts probe outcomes and the last sync in /metrics', async () => {
      const text = await (await board.call('GET', '/metrics')).text();
      expect(text).toMatch(/^agentboard_registry_probes_total\{outcome="working"\} 1$/m);
      expect(text).toMatch(/^agentboard_registry_probes_total\{outcome="auth-required"\} 1$/m);
      expect(text).toMatch(/^agentboard_registry_last_sync_ok 1$/m);
      expect(text).toMatch(/^agentboard_registry_last_sync_success_timestamp_seconds \d+/m);
    });

    it('lists servers with verdicts, tool counts, last checks and counts per verdict', async () => {
      const { status, body } = await board.json('GET', '/servers');
      expect(status).toBe(200);
      expect(body.total).toBe(4);
      expect(body.counts).toEqual({ working: 1, 'needs-auth': 1, unverified: 2 });
      const weather = body.servers.find((s: any) => s.name === 'io.github.acme/weather');
      expect(weather).toMatchObject({
        display_name: `Acme Weather ${HOSTILE}`,
        url: 'http://board.test/servers/io.github.acme/weather',
        verdict: 'working',
        verdict_label: 'Working',
        tool_count: 2,
        transport: 'streamable-http',
        endpoint: modernUrl,
      });
      expect(weather.checked_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(body.servers.find((s: any) => s.name === 'com.example/retired').status).toBe('deprecated');
      expect(body.meta.notice).toBeTruthy();
    });

    it('filters by verdict and finds by name, title or description', async () => {
      expect((await board.json('GET', '/servers?verdict=needs-auth')).body.servers.map((s: any) => s.name)).toEqual(['com.example/vault']);
      expect((await board.json('GET', '/servers?q=VAULT')).body.servers.map((s: any) => s.name)).toEqual(['com.example/vault']);
      expect((await board.json('GET', '/servers?q=forecasts')).body.total).toBe(1);
      expect((await board.json('GET', '/servers?q=nothing-like-this')).body).toMatchObject({ total: 0, servers: [], next_page: null });
    });

    it('answers bad parameters with 400 naming them, and refuses other methods', async () => {
      const bad = await board.json('GET', '/servers?verdict=great&page=0');
      expect(bad.status).toBe(400);
      expect(bad.res.headers.get('content-type')).toContain('application/problem+json');
      expect(bad.body.errors.map((e: any) => e.path).sort()).toEqual(['query/page', 'query/verdict']);
      const post = await board.call('POST', '/servers', { body: {} });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');
    });

    it('renders the page with a search box, verdict filter, counts and escaped registry text', async () => {
      const res = await board.call('GET', '/servers', { headers: html });
      const page = await res.text();
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(page).toContain('<form class="search" method="get" action="/servers"');
      expect(page).toContain('name="verdict"');
      expect(page).toContain('Working (1)');
      expect(page).toContain('Needs authentication (1)');
      expect(page).toContain('Unverified (2)');
      expect(page).toContain('third-party data');
      expect(page).not.toContain('<script>alert(1)');
      expect(page).not.toContain('<img src=x');
      expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(page).toContain('href="/servers/io.github.acme/weather"');
    });
  });

  describe('a working server', () => {
    it('has every item of its record in JSON', async () => {
      const { status, body } = await board.json('GET', '/servers/io.github.acme/weather');
      expect(status).toBe(200);
      const s = body.server;
      expect(s).toMatchObject({
        name: 'io.github.acme/weather',
        version: '1.0.0',
        transport: 'streamable-http',
        verdict: 'working',
        tool_count: 2,
        refused_probe: false,
        auth: null,
        experience_topic: 'io-github-acme-weather',
        links: {
          website: 'https://weather.acme.dev/',
          repository: 'https://github.com/acme/weather-mcp',
          registry: expect.stringMatching(/\/v0\.1\/servers\/io\.github\.acme%2Fweather\/versions\/latest$/),
        },
      });
      expect(s.last_outcome).toMatchObject({ kind: 'working', protocol_version: '2026-07-28' });
      expect(s.tools.map((t: any) => t.name)).toEqual(['alerts', 'forecast']);
      expect(s.history.map((h: any) => h.kind)).toEqual(['became-working', 'first-seen']);
      expect(s.connect.claude_code).toBe(`claude mcp add --transport http weather '${modernUrl}'`);
      expect(JSON.parse(s.connect.cursor)).toEqual({ mcpServers: { weather: { url: modernUrl } } });
      expect(JSON.parse(s.connect.vscode)).toEqual({ servers: { weather: { type: 'http', url: modernUrl } } });
    });

    it('shows experience reports: live findings with the server topic and their verification counts', async () => {
      const published = await board.json('POST', '/findings', {
        body: { content: 'The weather server answered forecast calls in 80 ms all week.', topics: ['io-github-acme-weather'] },
      });
      expect(published.status).toBe(201);
      const vote = await board.json('POST', `/p/${published.body.object.id}/verify`, { from: '198.51.100.7' });
      expect(vote.status, JSON.stringify(vote.body)).toBe(200);
      const { body } = await board.json('GET', '/servers/io.github.acme/weather');
      expect(body.server.experiences).toHaveLength(1);
      expect(body.server.experiences[0]).toMatchObject({ id: published.body.object.id, verification_count: 1 });
      const page = await (await board.call('GET', '/servers/io.github.acme/weather', { headers: html })).text();
      expect(page).toContain('The weather server answered forecast calls in 80 ms all week.');
      expect(page).toContain('1 verified');
    });

    it('renders the record page with every section the spec names, escaped', async () => {
      const res = await board.call('GET', '/servers/io.github.acme/weather', { headers: html });
      expect(res.status).toBe(200);
      const page = await res.text();
      for (const text of [
        'Registry identifier',
        'io.github.acme/weather',
        'Version',
        'Transport',
        'streamable-http',
        'Description',
        'Endpoint address',
        modernUrl,
        'Verdict',
        'Working',
        'Last check',
        'Tools</dt><dd>2',
        'Claude Code',
        'claude mcp add --transport http weather',
        'Cursor (mcp.json)',
        '&quot;mcpServers&quot;',
        'VS Code (.vscode/mcp.json)',
        '&quot;servers&quot;',
        'href="/servers/io.github.acme/weather/tools/forecast"',
        'History',
        'Became working',
        'First seen in the registry',
        'Experiences',
        'io-github-acme-weather',
        'href="https://github.com/acme/weather-mcp"',
        'rel="nofollow noopener noreferrer external"',
        'third-party data',
      ]) {
        expect(page, text).toContain(text);
      }
      expect(page).not.toContain('<script>alert');
      expect(page).not.toContain('<img src=x');
    });
  });

  describe('a server that needs authentication', () => {
    it('shows the scheme, the metadata address, the refusal and header placeholders', async () => {
      const { body } = await board.json('GET', '/servers/com.example/vault');
      expect(body.server).toMatchObject({
        verdict: 'needs-auth',
        verdict_label: 'Needs authentication',
        refused_probe: true,
        auth: { scheme: 'Bearer', resource_metadata_url: protectedMetadata },
        tools: [],
        headers: [{ name: 'Authorization', description: 'Token from the vault console', required: true, secret: true }],
      });
      expect(body.server.connect.claude_code).toContain(`--header 'Authorization: Bearer YOUR_TOKEN'`);
      expect(JSON.parse(body.server.connect.vscode).inputs).toEqual([{ type: 'promptString', id: 'token', description: 'Token from the vault console', password: true }]);
      expect(body.server.history.map((h: any) => h.kind)).toEqual(['auth-required', 'first-seen']);
      const page = await (await board.call('GET', '/servers/com.example/vault', { headers: html })).text();
      expect(page).toContain('Needs authentication');
      expect(page).toContain('<strong>Bearer</strong>');
      expect(page).toContain(protectedMetadata);
      expect(page).toContain('The server refused the probe with HTTP 401');
      expect(page).toContain('No tool list was obtained');
      expect(page).toContain('replace the placeholders');
    });
  });

  describe('a server that is never probed', () => {
    it('says why and that no tool list was obtained', async () => {
      const { body } = await board.json('GET', '/servers/com.example/tenant');
      expect(body.server).toMatchObject({ verdict: 'unverified', checked_at: null, tools: [], last_outcome: { kind: 'template-url' } });
      const page = await (await board.call('GET', '/servers/com.example/tenant', { headers: html })).text();
      expect(page).toContain('never');
      expect(page).toContain('No tool list was obtained: not probed: the endpoint address is a template');
    });
  });

  describe('a tool', () => {
    it('has its name, title, description, parameters, raw schema and dates', async () => {
      const { status, body } = await board.json('GET', '/servers/io.github.acme/weather/tools/forecast');
      expect(status).toBe(200);
      expect(body.tool).toMatchObject({ name: 'forecast', title: 'Weather forecast', listed: true, server: 'io.github.acme/weather' });
      expect(body.tool.parameters).toEqual([
        { name: 'city', type: 'string', required: true, description: `City name ${HOSTILE}` },
        { name: 'days', type: 'integer', required: false, description: null },
        { name: 'units', type: 'enum', required: false, description: null },
      ]);
      expect(body.tool.input_schema.properties.city.type).toBe('string');
      expect(body.tool.first_seen_at).toBe(body.tool.last_seen_at);
      const page = await (await board.call('GET', '/servers/io.github.acme/weather/tools/forecast', { headers: html })).text();
      for (const text of ['<h1>forecast</h1>', 'Short title', 'Weather forecast', '<th scope="col">Property</th>', '<th scope="col">Required</th>', 'Raw JSON schema', 'First seen', 'Last seen', '&quot;city&quot;']) {
        expect(page, text).toContain(text);
      }
      expect(page).not.toContain('<script>alert');
    });
  });

  describe('unknown records', () => {
    it('answers 404 for an unknown server or tool, as problem+json or an HTML page', async () => {
      for (const path of ['/servers/com.example/nope', '/servers/io.github.acme/weather/tools/nope', '/servers/com.example/retired-not/tools/x']) {
        const res = await board.call('GET', path);
        expect(res.status, path).toBe(404);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        const page = await board.call('GET', path, { headers: html });
        expect(page.status).toBe(404);
        expect(page.headers.get('content-type')).toContain('text/html');
      }
    });
  });
});

describe('/servers when the registry cannot be read', () => {
  it('says when it last tried and why, keeps the last good list, and recovers', async () => {
    const registry = await startRegistry([listingItem('com.example/kept', { remotes: [{ type: 'sse', url: 'https://kept.example.com/sse' }] })]);
    const board = await makeTestBoard({ REGISTRY_URL: registry.origin, ALLOW_PRIVATE_NETWORK: 'true' });
    try {
      const before = await board.json('GET', '/servers', { headers: { accept: 'application/json' } });
      expect(before.body.sync).toEqual({ enabled: true, attempted_at: null, ok: null, error: null, succeeded_at: null, entries: null });
      expect(await (await board.call('GET', '/servers', { headers: html })).text()).toContain('has not been read yet');

      await board.registryRunner!.cycle();
      const synced = await board.json('GET', '/servers', { headers: { accept: 'application/json' } });
      expect(synced.body.sync).toMatchObject({ ok: true, error: null, entries: 1, attempted_at: '2026-03-01T12:00:00.000Z', succeeded_at: '2026-03-01T12:00:00.000Z' });

      await registry.close();
      board.clock.advance(2 * 3600_000);
      await board.registryRunner!.cycle();
      const failed = await board.json('GET', '/servers', { headers: { accept: 'application/json' } });
      expect(failed.body.sync).toMatchObject({ ok: false, attempted_at: '2026-03-01T14:00:00.000Z', succeeded_at: '2026-03-01T12:00:00.000Z', entries: 1 });
      expect(failed.body.sync.error).toContain(registry.origin);
      expect(failed.body.servers.map((s: { name: string }) => s.name)).toEqual(['com.example/kept']);
      const page = await (await board.call('GET', '/servers', { headers: html })).text();
      expect(page).toContain('could not be read when this board last tried');
      expect(page).toContain('from the last complete sync');
      expect(page).not.toContain('No server matches');
    } finally {
      await board.dispose();
    }
  });

  it('says so when sync is turned off', async () => {
    const board = await makeTestBoard({ REGISTRY_URL: 'off' });
    try {
      expect((await board.json('GET', '/servers', { headers: { accept: 'application/json' } })).body.sync.enabled).toBe(false);
      expect(await (await board.call('GET', '/servers', { headers: html })).text()).toContain('REGISTRY_URL=off');
    } finally {
      await board.dispose();
    }
  });
});
