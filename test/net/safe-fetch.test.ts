import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress, OutboundRefused, safeFetch } from '../../src/net/safe-fetch.js';

let server: Server;
let base: string;
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    if (req.url === '/ok') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
    if (req.url === '/big') return void res.writeHead(200).end(Buffer.alloc(2_000_000, 120));
    if (req.url === '/hang') return; // never answers
    if (req.url === '/to-ok') return void res.writeHead(302, { location: '/ok' }).end();
    if (req.url === '/to-other-loopback') return void res.writeHead(302, { location: `http://127.0.0.2:${(server.address() as AddressInfo).port}/ok` }).end();
    if (req.url === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const open = { allowPrivateNetwork: true, timeoutMs: 2000, maxBytes: 1_000_000 };
const closed = { ...open, allowPrivateNetwork: false };

describe('isPublicAddress', () => {
  it.each([
    ['8.8.8.8', true],
    ['2001:4860:4860::8888', true],
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['fd00:ec2::254', false],
    ['fe80::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['::127.0.0.1', false],
    ['::7f00:1', false],
    ['::a00:1', false],
    ['::808:808', false],
    ['2606:4700::1111', true],
    ['not-an-ip', false],
  ])('%s → %s', (ip, pub) => expect(isPublicAddress(ip)).toBe(pub));
});

describe('safeFetch', () => {
  it('fetches loopback when private networks are allowed', async () => {
    const r = await safeFetch(`${base}/ok`, {}, open);
    expect(r.status).toBe(200);
    expect(r.text()).toBe('hello');
  });

  it('refuses loopback, private and metadata addresses before connecting when they are not', async () => {
    const before = hits;
    const https = (host: string) => `https://${host}/x`;
    for (const url of [
      https('127.0.0.1'),
      https('[::1]'),
      https('[::ffff:127.0.0.1]'),
      https('[::127.0.0.1]'),
      https('[::7f00:1]'),
      https('10.0.0.1'),
      https('192.168.0.10'),
      https('169.254.169.254'),
      https('[fd00:ec2::254]'),
      https('localhost'),
    ]) {
      await expect(safeFetch(url, {}, closed), url).rejects.toBeInstanceOf(OutboundRefused);
    }
    expect(hits).toBe(before);
  });

  it('refuses plain http unless private networks are allowed, and URLs with credentials', async () => {
    await expect(safeFetch(`${base}/ok`, {}, closed)).rejects.toThrow(/only https/);
    await expect(safeFetch('https://user:pw@example.org/', {}, closed)).rejects.toThrow(/credentials/);
  });

  it('follows redirects, checking every hop', async () => {
    expect((await safeFetch(`${base}/to-ok`, {}, open)).text()).toBe('hello');
    // Only 127.0.0.1 may be reached: the redirect to 127.0.0.2 is refused before connecting.
    const only = { ...open, addressAllowed: (ip: string) => ip === '127.0.0.1' };
    await expect(safeFetch(`${base}/to-other-loopback`, {}, only)).rejects.toThrow(/refused address 127.0.0.2/);
    await expect(safeFetch(`${base}/loop`, {}, open)).rejects.toThrow(/too many redirects/);
  });

  it('caps the body and the time', async () => {
    await expect(safeFetch(`${base}/big`, {}, open)).rejects.toThrow(/over 1000000 bytes/);
    const started = Date.now();
    await expect(safeFetch(`${base}/hang`, {}, { ...open, timeoutMs: 200 })).rejects.toThrow(/in time/);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
