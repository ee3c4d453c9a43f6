import { describe, expect, it } from 'vitest';
import { parseListingPage, toEntry } from './listing.js';
import { clip, webUrl } from './third-party.js';

const item = (server: Record<string, unknown>, official: Record<string, unknown> = {}) => ({
  server: { name: 'io.github.acme/weather', version: '1.4.0', description: 'Forecasts', ...server },
  _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', publishedAt: '2026-05-02T09:14:11.402Z', updatedAt: '2026-05-03T00:00:00Z', isLatest: true, ...official } },
});

describe('registry listing', () => {
  it('reads the fields the board shows, preferring a streamable-http remote', () => {
    const e = toEntry(
      item({
        title: 'Acme Weather',
        websiteUrl: 'https://weather.acme.dev',
        repository: { url: 'https://github.com/acme/weather-mcp', source: 'github' },
        remotes: [
          { type: 'sse', url: 'https://mcp.acme.dev/sse' },
          {
            type: 'streamable-http',
            url: 'https://mcp.acme.dev/mcp',
            headers: [{ name: 'Authorization', description: 'Bearer token', isRequired: true, isSecret: true, value: 'Bearer {token}' }],
          },
        ],
      }),
    );
    expect(e).toMatchObject({
      name: 'io.github.acme/weather',
      version: '1.4.0',
      title: 'Acme Weather',
      status: 'active',
      websiteUrl: 'https://weather.acme.dev/',
      repositoryUrl: 'https://github.com/acme/weather-mcp',
      remote: { type: 'streamable-http', url: 'https://mcp.acme.dev/mcp', headers: [{ name: 'Authorization', required: true, secret: true, value: 'Bearer {token}' }] },
      publishedAt: Date.parse('2026-05-02T09:14:11.402Z'),
    });
  });

  it('keeps template URLs as written and reads status from the official block', () => {
    const e = toEntry(item({ remotes: [{ type: 'streamable-http', url: 'https://{tenant_id}.api.example.com/mcp' }] }, { status: 'deprecated' }));
    expect(e?.remote?.url).toBe('https://{tenant_id}.api.example.com/mcp');
    expect(e?.status).toBe('deprecated');
  });

  it('drops hostile or broken values instead of trusting them', () => {
    const e = toEntry(
      item({
        title: 'x'.repeat(500),
        description: 'ok\u0000\u202e',
        websiteUrl: 'javascript:alert(1)',
        repository: 'not an object',
        remotes: [{ type: 'streamable-http', url: 'ftp://x' }, { type: 'websocket', url: 'wss://x' }],
      }),
    );
    expect([...(e?.title ?? '')].length).toBe(100);
    expect(e?.description).toBe('ok');
    expect(e?.websiteUrl).toBeNull();
    expect(e?.repositoryUrl).toBeNull();
    expect(e?.remote).toBeNull();
    expect(toEntry(item({ name: '../../etc/passwd' }))).toBeNull();
    expect(toEntry(item({ name: 'a/b/c' }))).toBeNull();
    expect(toEntry({ server: 'nope' })).toBeNull();
    expect(toEntry(null)).toBeNull();
  });

  it('parses a page, counting unusable items, and refuses what is not a listing', () => {
    const page = parseListingPage({ servers: [item({}), { junk: true }], metadata: { nextCursor: 'io.github.acme/weather:1.4.0', count: 2 } });
    expect(page.entries).toHaveLength(1);
    expect(page.skipped).toBe(1);
    expect(page.nextCursor).toBe('io.github.acme/weather:1.4.0');
    expect(parseListingPage({ servers: [] }).nextCursor).toBeNull();
    expect(() => parseListingPage({ error: 'x' })).toThrow(/not a server listing/);
  });

  it('clips text and accepts only web addresses', () => {
    expect(clip('  a\u0007b  ', 10)).toBe('ab');
    expect(clip('abcdef', 4)).toBe('abc…');
    expect(clip(42, 4)).toBeNull();
    expect(webUrl('data:text/html,x')).toBeNull();
    expect(webUrl('http://a.example')).toBe('http://a.example/');
  });
});
