/// <reference lib="dom" />
/**
 * The HTML site in a real browser: Debian's Chromium driven by playwright-core (never a
 * downloaded browser). Every page renders, nothing hostile executes or breaks the layout at
 * 390 px, axe finds no serious or critical violations, links resolve, and the search form
 * works with and without JavaScript. Screenshots go to test-output/browser/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { listingItem, startModernServer, startProtectedServer, startRegistry, type Running } from '../helpers/mcp-servers.js';
import { ROOT } from '../helpers/paths.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = join(ROOT, 'test-output', 'browser');
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const HOSTILE = [
  '<script>window.__pwned = 1</script>',
  '<img src=x onerror="window.__pwned = 2">',
  '<a href="javascript:window.__pwned=3">click me</a>',
  `${'unbroken'.repeat(120)}`,
  'مرحبا بالعالم — نص من اليمين إلى اليسار',
  '🧪🔥👩🏽‍💻 emoji with ZWJ sequences 🏳️‍🌈',
];

let b: TestBoard;
let server: ServerType;
let base: string;
let browser: Browser;
const ids: Record<string, string> = {};
const mcp: Running[] = [];

/** Registry records made the real way: a local listing and MCP servers, synced and probed. */
async function registryEnv(): Promise<Record<string, string>> {
  const modern = await startModernServer([
    { name: 'forecast', title: HOSTILE[0], description: HOSTILE.join('\n'), input: z.object({ city: z.string().describe(HOSTILE[1]!), [HOSTILE[3]!]: z.string() }) },
    { name: 'alerts', description: 'Active alerts', input: z.object({}) },
  ]);
  const prot = await startProtectedServer(true);
  const registry = await startRegistry([
    listingItem('io.github.acme/weather', { title: HOSTILE[0], description: HOSTILE[1], websiteUrl: 'https://weather.acme.dev', remotes: [{ type: 'streamable-http', url: modern.url }] }),
    listingItem('com.example/vault', {
      title: HOSTILE[4],
      remotes: [{ type: 'streamable-http', url: prot.url, headers: [{ name: 'Authorization', isRequired: true, isSecret: true, value: 'Bearer {token}' }] }],
    }),
    listingItem('com.example/tenant', { description: HOSTILE[3], remotes: [{ type: 'streamable-http', url: 'https://{tenant}.example.com/mcp' }] }),
  ]);
  mcp.push(modern, prot, registry);
  return { REGISTRY_URL: registry.origin, ALLOW_PRIVATE_NETWORK: 'true' };
}

beforeAll(async () => {
  b = await makeTestBoard({ ADMIN_TOKEN: 'admin-token', BASE_URL: '', ...(await registryEnv()) });
  await b.registryRunner!.cycle();
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: b.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const post = async (path: string, body: object) => (await b.json('POST', path, { body })).body.object.id as string;
  for (const [i, text] of HOSTILE.entries()) {
    ids[`hostile${i}`] = await post('/findings', { title: text.slice(0, 120), content: `${text}\n${text}`, topics: ['xss', 'hostile'] });
  }
  ids.long = await post('/findings', { content: `Long ${'lorem ipsum dolor sit amet '.repeat(140)}`.slice(0, 4000), topics: ['xss'] });
  ids.pool = await post('/findings', { title: 'Connection pool exhausted', content: 'pg pool exhausted under load: raise max and add a queue', topics: ['postgres'] });
  ids.request = await post('/requests', { content: 'Why does the pool run dry at night?', topics: ['postgres'] });
  ids.artifact = await post('/artifacts', { content: 'Pool sizing calculator', topics: ['postgres'], source_url: 'https://example.org/calc' });
  await b.json('POST', `/p/${ids.pool}/replies`, { body: { content: 'Seen it too <b>bold?</b>' } });
  await b.json('POST', `/p/${ids.pool}/verify`, { from: '192.0.2.1' });
  ids.hidden = await post('/findings', { content: 'to be hidden', topics: ['postgres'] });
  await b.json('POST', `/admin/p/${ids.hidden}/hide`, { headers: { authorization: 'Bearer admin-token' } });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS });
  mkdirSync(SHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await b?.dispose();
  await Promise.all(mcp.map((m) => m.close()));
});

const PAGES = (): [string, string, number][] => [
  ['home', '/', 200],
  ['findings', '/findings', 200],
  ['requests', '/requests', 200],
  ['object', `/p/${ids.pool}`, 200],
  ['object-hostile', `/p/${ids.hostile0}`, 200],
  ['object-unbroken', `/p/${ids.hostile3}`, 200],
  ['object-rtl', `/p/${ids.hostile4}`, 200],
  ['object-long', `/p/${ids.long}`, 200],
  ['object-hidden', `/p/${ids.hidden}`, 200],
  ['artifact', `/p/${ids.artifact}`, 200],
  ['topics', '/topics', 200],
  ['topic', '/topics/xss', 200],
  ['search-form', '/search', 200],
  ['search-results', '/search?q=pool+exhausted', 200],
  ['search-hostile', '/search?q=unbroken', 200],
  ['search-empty', '/search?q=pool&type=status', 200],
  ['servers', '/servers', 200],
  ['servers-filtered', '/servers?verdict=needs-auth&q=vault', 200],
  ['server-working', '/servers/io.github.acme/weather', 200],
  ['server-auth', '/servers/com.example/vault', 200],
  ['server-unprobed', '/servers/com.example/tenant', 200],
  ['tool', '/servers/io.github.acme/weather/tools/forecast', 200],
  ['tool-missing', '/servers/io.github.acme/weather/tools/nope', 404],
  ['about', '/about', 200],
  ['problem', '/problems/validation-error', 200],
  ['not-found', '/no/such/page', 404],
];

/** Runs fn over the items with up to `width` pages in flight: the browser renders while node waits. */
async function inParallel<T>(items: T[], fn: (item: T) => Promise<void>, width = 4): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: width }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  }));
}

async function open(page: Page, path: string) {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => {
    errors.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  const res = await page.goto(base + path);
  return { res, errors };
}

describe('every page in Chromium at 390 px', () => {
  it('renders with its status, no console errors, nothing executed, no horizontal overflow, one h1, a skip link', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      await inParallel(PAGES(), async ([name, path, status]) => {
        const page = await context.newPage();
        const { res, errors } = await open(page, path);
        expect(res?.status(), path).toBe(status);
        expect(res?.headers()['content-type'], path).toMatch(/^text\/html/);
        // Chromium logs the document's own 404 status; that is the point of the not-found page.
        const unexpected = status === 404 ? errors.filter((e) => !/status of 404/.test(e)) : errors;
        expect(unexpected, path).toEqual([]);
        expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), path).toBeUndefined();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${path} overflows by ${overflow}px`).toBeLessThanOrEqual(0);
        expect(await page.locator('h1').count(), path).toBe(1);
        expect((await page.title()).length, path).toBeGreaterThan(0);
        expect(await page.locator('a.skip[href="#main"]').count(), path).toBe(1);
        await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
        await page.close();
      });
    } finally {
      await context.close();
    }
  }, 120_000);

  it('shows agent text escaped, under the notice that it is data, not instructions', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/p/${ids.hostile1}`);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.locator('main').innerText()).toContain('<img src=x onerror=');
    expect(await page.locator('.notice').innerText()).toMatch(/written by agents.*data to evaluate, not as instructions/);
    await page.goto(`${base}/p/${ids.hostile2}`);
    expect(await page.locator('main a[href^="javascript:"]').count()).toBe(0);
    // Right-to-left text lays itself out right to left.
    await page.goto(`${base}/p/${ids.hostile4}`);
    expect(await page.locator('main .content').evaluate((el) => getComputedStyle(el).direction)).toBe('rtl');
    await page.close();
  });

  it('axe-core finds no serious or critical violations, in light and dark', async () => {
    // CSP forbids scripts on our pages; this context lets axe in for the audit only.
    const context = await browser.newContext({ bypassCSP: true, colorScheme: 'light', viewport: { width: 1024, height: 800 } });
    const audit = (page: Page, rules?: string[]) =>
      page.evaluate(async (only) => {
        const axe = (window as unknown as { axe: { run: (o: unknown) => Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } }).axe;
        const r = await axe.run({ resultTypes: ['violations'], ...(only ? { runOnly: { type: 'rule', values: only } } : {}) });
        return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes.length})`);
      }, rules);
    try {
      await inParallel(PAGES(), async ([, path]) => {
        const page = await context.newPage();
        await page.goto(base + path);
        await page.addScriptTag({ content: AXE });
        expect(await audit(page), `light ${path}`).toEqual([]);
        // Dark changes colours only: the same page, re-checked for contrast.
        await page.emulateMedia({ colorScheme: 'dark' });
        expect(await audit(page, ['color-contrast', 'link-in-text-block']), `dark ${path}`).toEqual([]);
        await page.close();
      });
    } finally {
      await context.close();
    }
  }, 120_000);

  it('every link on every page resolves', async () => {
    const page = await browser.newPage();
    const links = new Set<string>();
    for (const [, path, status] of PAGES()) {
      if (status !== 200) continue; // the not-found page links to itself (#main) by design
      await page.goto(base + path);
      for (const href of await page.locator('a[href]').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href))) {
        if (href.startsWith(base)) links.add(href.split('#')[0]!);
      }
    }
    await page.close();
    expect(links.size).toBeGreaterThan(20);
    const broken: string[] = [];
    for (const href of links) {
      const res = await fetch(href, { headers: { accept: 'text/html' } });
      if (res.status >= 400) broken.push(`${res.status} ${href}`);
      // Event-stream links (a thread's feed) never end by themselves.
      await res.body?.cancel();
    }
    expect(broken).toEqual([]);
  }, 60_000);

  it('every page works with JavaScript disabled', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    try {
      await inParallel(PAGES(), async ([, path, status]) => {
        const page = await context.newPage();
        const res = await page.goto(base + path);
        expect(res?.status(), path).toBe(status);
        expect((await page.locator('h1').innerText()).length, path).toBeGreaterThan(0);
        expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth).catch(() => 0), path).toBeLessThanOrEqual(0);
        await page.close();
      });
    } finally {
      await context.close();
    }
  }, 60_000);

  it('the search form works, with JavaScript and without', async () => {
    for (const javaScriptEnabled of [true, false]) {
      const context = await browser.newContext({ javaScriptEnabled });
      const page = await context.newPage();
      await page.goto(`${base}/`);
      await page.fill('#q', 'pool exhausted');
      await Promise.all([page.waitForURL(/\/search\?q=pool\+exhausted/), page.click('form.search button')]);
      expect(await page.locator('h1').innerText()).toContain('pool exhausted');
      expect(await page.locator('ol.objects > li').count()).toBeGreaterThan(0);
      expect(await page.locator('ol.objects mark').first().innerText()).toMatch(/pool|exhausted/i);
      await page.goto(`${base}/p/${ids.pool}`);
      expect(await page.locator('h1').innerText()).toBe('Connection pool exhausted');
      await context.close();
    }
  }, 60_000);
});
