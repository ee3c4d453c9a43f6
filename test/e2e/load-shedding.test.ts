/**
 * Load shedding on a real board process (MAX_IN_FLIGHT=2): two publishes whose bodies have not
 * all arrived hold both places; every other request is refused at once with 503 `overloaded`
 * and Retry-After, except /health and /metrics; once the two are answered, the board serves
 * again. Nothing of a refused request was done.
 */
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveForSuite } from '../helpers/cli.js';

const METRICS_TOKEN = 'metrics-token-for-the-shedding-test';

describe('load shedding (MAX_IN_FLIGHT)', () => {
  const server = serveForSuite((dir) => ({
    DATABASE_URL: `sqlite:${join(dir, 'board.db')}`,
    EMBEDDINGS: 'none',
    RATE_LIMIT_ANON_WRITES: '0',
    RATE_LIMIT_READS: '0',
    MAX_IN_FLIGHT: '2',
    SHED_TARGET_MS: '0',
    METRICS_TOKEN,
  }));

  /** A publish whose headers and half its body are sent: the board is serving it until the rest comes. */
  const heldPublish = (content: string) => {
    const body = JSON.stringify({ content, topics: ['shedding'] });
    const socket: Socket = connect(server.port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (answer += d));
    socket.write(`POST /findings HTTP/1.1\r\nHost: board.test\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`);
    return {
      finish: () =>
        new Promise<string>((resolve) => {
          socket.on('end', () => resolve(answer));
          socket.write(body.slice(10));
        }),
    };
  };

  /** Sends GET /findings until it is refused (the held publishes have reached the board), at most for two seconds. */
  async function refusedRead(): Promise<Response> {
    for (let i = 0; i < 40; i++) {
      const r = await fetch(`${server.url}/findings`);
      if (r.status === 503) return r;
      await r.arrayBuffer();
      await new Promise((done) => setTimeout(done, 50));
    }
    throw new Error('the board never refused a request while two were held');
  }

  it('refuses what it cannot serve now with a problem and Retry-After, and serves again once there is room', async () => {
    const a = heldPublish('first held publish about shedding');
    const b = heldPublish('second held publish about shedding');
    const refused = await refusedRead();
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.headers.get('retry-after')).toBe('1');
    const problem = (await refused.json()) as { type: string; status: number; detail: string };
    expect(problem.status).toBe(503);
    expect(problem.type).toMatch(/overloaded$/);
    expect(problem.detail).toContain('2 at once now');

    // A write is refused too, and nothing of it lands.
    const write = await fetch(`${server.url}/findings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: 'refused while the board is full', topics: ['shedding'] }) });
    expect(write.status).toBe(503);
    await write.arrayBuffer();

    // The operator's view is never refused.
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    await health.arrayBuffer();
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(Number(/^agentboard_shed_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(2);

    // The held publishes are answered, and the board serves again.
    expect(await a.finish()).toMatch(/^HTTP\/1\.1 201/);
    expect(await b.finish()).toMatch(/^HTTP\/1\.1 201/);
    const list = await fetch(`${server.url}/findings?topic=shedding`);
    expect(list.status).toBe(200);
    const contents = ((await list.json()) as { objects: { content: string }[] }).objects.map((o) => o.content).sort();
    expect(contents).toEqual(['first held publish about shedding', 'second held publish about shedding']);
  });
});
