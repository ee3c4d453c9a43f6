/**
 * Slow clients against a real board process: 500 connections sending their headers a byte a
 * second, and 500 event streams whose readers never read while objects are published. Other
 * clients are served all along, and the process's memory stays within its budget for streams.
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loggedErrors, serveForSuite } from '../helpers/cli.js';

const SLOW_HEADERS = 500;
const STALLED_STREAMS = 500;
/** The memory budget the board states for event streams (docs/performance.md, Memory). */
const STREAM_BUDGET_BYTES = 256 * 2 ** 20;

const rss = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

describe('slow clients', () => {
  const server = serveForSuite((dir) => ({
    DATABASE_URL: `sqlite:${join(dir, 'board.db')}`,
    EMBEDDINGS: 'none',
    RATE_LIMIT_ANON_WRITES: '0',
    RATE_LIMIT_READS: '0',
    TRUST_PROXY: 'true',
  }));

  it('keep no other client waiting, and the memory within its budget', async () => {
    const sockets: Socket[] = [];
    const open = (lines: string, paused: boolean) =>
      new Promise<Socket>((resolve) => {
        const s = connect(server.port, '127.0.0.1', () => resolve(s));
        s.on('error', () => undefined);
        if (paused) s.pause();
        s.write(lines);
        sockets.push(s);
      });
    try {
      // Warm the process up, then take its memory before the slow clients come.
      for (let i = 0; i < 20; i++) await fetch(`${server.url}/findings`);
      const before = rss(server.child.pid!);
      // 500 clients that send a request line and then one header byte a second.
      const slow = await Promise.all(Array.from({ length: SLOW_HEADERS }, () => open('GET /findings HTTP/1.1\r\nHost: board.test\r\nX-Slow: ', false)));
      const drip = setInterval(() => slow.forEach((s) => s.write('a')), 1000);
      // 500 event streams, each from its own address, whose readers never read.
      await Promise.all(
        Array.from({ length: STALLED_STREAMS }, (_, i) => open(`GET /events HTTP/1.1\r\nHost: board.test\r\nX-Forwarded-For: 10.9.${i >> 8}.${i & 255}\r\n\r\n`, true)),
      );
      try {
        // Everyone else is served meanwhile: publishes (whose events every stalled stream is sent), reads, health.
        const served: number[] = [];
        for (let i = 0; i < 100; i++) {
          const r = await fetch(`${server.url}/findings`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.99' },
            body: JSON.stringify({ content: `published while slow clients wait ${i} ${'words to fill the event '.repeat(20)}`, topics: ['slow-clients'] }),
            signal: AbortSignal.timeout(5000),
          });
          served.push(r.status);
        }
        for (const path of ['/findings?topic=slow-clients', '/health', '/search?q=slow+clients&mode=lexical']) {
          served.push((await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(5000) })).status);
        }
        expect(served.filter((s) => s !== 200 && s !== 201)).toEqual([]);
        expect(rss(server.child.pid!) - before).toBeLessThan(STREAM_BUDGET_BYTES);
      } finally {
        clearInterval(drip);
      }
    } finally {
      for (const s of sockets) s.destroy();
    }
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect(loggedErrors(server.output())).toEqual([]);
  }, 120_000);
});
