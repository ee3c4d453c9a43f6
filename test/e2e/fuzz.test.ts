/**
 * A seeded fuzz over real sockets against a real `serve`, on SQLite and on two PostgreSQL +
 * Redis instances: raw requests with hostile request lines, headers and bodies, some valid HTTP
 * and some not. Whatever arrives, the board answers
 * with no 5xx, every refusal is a problem document, nothing is logged at error level, and it
 * keeps serving. The same seed makes the same requests, so a failure can be replayed.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ON_CI } from '../helpers/ci.js';
import { loggedErrors, serveForSuite, startInstances, type startServer } from '../helpers/cli.js';
import { freshSchema, pgUnavailable } from '../helpers/pg.js';
import { prng } from '../../src/bench/prng.js';

const SEED = 20261123;
const COUNT = 1500;

const rand = prng(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const bytes = (n: number, lo = 0, hi = 256) => Buffer.from(Array.from({ length: n }, () => lo + Math.floor(rand() * (hi - lo))));
const junk = () => pick([bytes(1 + Math.floor(rand() * 40)).toString('latin1'), '%00%ff', '../../etc/passwd', '\u202e\u0000', 'ü'.repeat(3), "'; DROP TABLE objects;--", '{"a":'.repeat(50)]);

const PATHS = ['/findings', '/requests', '/artifacts', '/status', '/search?q=x', '/topics', '/topics/ab', '/p/01ARZ3NDEKTSV4RRFFQ69G5FAV', '/p/01ARZ3NDEKTSV4RRFFQ69G5FAV/replies', '/p/01ARZ3NDEKTSV4RRFFQ69G5FAV/votes', '/keys', '/servers', '/metrics', '/', '/health'];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'G@T', 'get', 'CONNECT'];

/** One request, as bytes: mostly well-formed HTTP with hostile parts, sometimes not HTTP at all. */
function request(): Buffer {
  const r = rand();
  if (r < 0.08) return bytes(1 + Math.floor(rand() * 300));
  const method = rand() < 0.85 ? pick(METHODS.slice(0, 7)) : pick(METHODS);
  let path = pick(PATHS);
  if (rand() < 0.3) path += (path.includes('?') ? '&' : '?') + `q=${encodeURIComponent(junk())}&limit=${pick(['0', '-1', '1e9', 'x', '50'])}&cursor=${encodeURIComponent(junk())}`;
  if (rand() < 0.05) path = `/${bytes(6, 0, 32).toString('latin1')}`;
  const body = pick([
    '',
    JSON.stringify({ content: junk(), topics: [junk()] }),
    JSON.stringify({ content: 'x'.repeat(5000), topics: ['a'] }),
    JSON.stringify({ title: junk(), content: 'fuzz', topics: ['fuzz'], source_url: junk(), expires_at: junk() }),
    junk(),
    '{"content":"',
  ]);
  const headers = [`Host: ${rand() < 0.95 ? 'board.test' : junk()}`];
  if (body) headers.push(`Content-Type: ${pick(['application/json', 'text/plain', 'application/json; charset=utf-16', junk()])}`);
  if (body && rand() < 0.9) headers.push(`Content-Length: ${rand() < 0.9 ? Buffer.byteLength(body) : pick(['-1', 'abc', '99999999'])}`);
  if (rand() < 0.1) headers.push(`Expect: ${pick(['100-continue', 'x'])}`);
  if (rand() < 0.1) headers.push(`Signature-Input: sig1=${junk()}`, `Signature: sig1=:${junk()}:`);
  if (rand() < 0.1) headers.push(`Accept: ${pick(['text/html', '*/*', junk()])}`);
  return Buffer.concat([Buffer.from(`${method} ${path} HTTP/1.1\r\n${headers.join('\r\n')}\r\nConnection: close\r\n\r\n`, 'latin1'), Buffer.from(body, 'latin1')]);
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

function send(port: number, data: Buffer): Promise<Answer | null> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let raw = '';
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on('data', (d) => (raw += d.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      // Skip interim answers (100 Continue) to the final one.
      const final = raw.replace(/^HTTP\/1\.1 1\d\d [^\r]*\r\n\r\n/, '');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(final);
      if (!m) return resolve(null);
      const head = final.slice(0, final.indexOf('\r\n\r\n'));
      // Extra bytes past a declared Content-Length are read as a second request: keep the first answer.
      const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1];
      const rest = final.slice(head.length + 4);
      resolve({ status: Number(m[1]), contentType: /\r\ncontent-type: ([^\r]*)/i.exec(head)?.[1] ?? '', body: length === undefined ? rest : rest.slice(0, Number(length)) });
    });
    socket.on('error', () => undefined);
    socket.end(data);
  });
}

/** Sends the seeded requests over 8 connections, spread over `ports`, and checks every answer. */
async function fuzz(ports: readonly number[], output: () => string): Promise<void> {
  const answers: { req: string; a: Answer | null }[] = [];
  const queue = Array.from({ length: COUNT }, request);
  await Promise.all(
    Array.from({ length: 8 }, async (_, c) => {
      for (let data = queue.shift(); data; data = queue.shift()) answers.push({ req: data.toString('latin1').slice(0, 120), a: await send(ports[c % ports.length]!, data) });
    }),
  );
  const answered = answers.filter((x) => x.a !== null) as { req: string; a: Answer }[];
  // A connection may close unanswered only when the request never finished (a body shorter than its Content-Length).
  expect(answered.length).toBeGreaterThan(COUNT * 0.8);
  expect(answered.filter((x) => x.a.status >= 500).map((x) => `${x.a.status} ${x.req}`)).toEqual([]);
  const bare = answered.filter((x) => x.a.status >= 400 && !(x.a.contentType.startsWith('application/problem+json') || (x.a.contentType.startsWith('text/html') && /^GET /.test(x.req))));
  expect(bare.map((x) => `${x.a.status} ${x.a.contentType || '(none)'} ${JSON.stringify(x.req)}`)).toEqual([]);
  for (const x of answered.filter((y) => y.a.contentType.startsWith('application/problem+json') && y.a.body)) {
    expect(JSON.parse(x.a.body).status, x.req).toBe(x.a.status);
  }
  for (const port of ports) expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  expect(loggedErrors(output())).toEqual([]);
}

const ENV = { EMBEDDINGS: 'none', RATE_LIMIT_ANON_WRITES: '0', RATE_LIMIT_READS: '0', METRICS_TOKEN: 'fuzz-metrics-token-0123' };

describe(`seeded fuzz over sockets (seed ${SEED}, ${COUNT} requests)`, () => {
  const server = serveForSuite((dir) => ({ DATABASE_URL: `sqlite:${join(dir, 'board.db')}`, ...ENV }));

  it('never answers 5xx, refuses only with problem documents, logs no error, and keeps serving', () => fuzz([server.port], server.output), 120_000);
});

const pgDown = await pgUnavailable();
if (pgDown && ON_CI) throw new Error(pgDown);
if (pgDown) console.warn(`skipped: the seeded fuzz on two PostgreSQL instances: ${pgDown}`);

describe.skipIf(pgDown !== null)(`seeded fuzz over sockets on two PostgreSQL + Redis instances (seed ${SEED}, ${COUNT} requests)`, () => {
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  const boards: Awaited<ReturnType<typeof startServer>>[] = [];
  beforeAll(async () => {
    schema = await freshSchema();
    const env = { DATABASE_URL: schema.url, REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', REDIS_PREFIX: `fuzz-${randomBytes(4).toString('hex')}:`, ...ENV };
    boards.push(...(await startInstances(env, 2)));
  }, 60_000);
  afterAll(async () => {
    for (const b of boards) b.child.kill('SIGKILL');
    await schema?.drop();
  });

  it('never answers 5xx from either, refuses only with problem documents, logs no error, and both keep serving', () =>
    fuzz(
      boards.map((b) => Number(new URL(b.url).port)),
      () => boards.map((b) => b.output()).join('\n'),
    ), 120_000);
});
