/**
 * What never reaches the app still gets a problem document: raw bytes over a real socket to a
 * real `serve`, for each way Node's parser, the Expect header or the Host header can refuse.
 */
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loggedErrors, serveForSuite } from '../helpers/cli.js';

const server = serveForSuite((dir) => ({ DATABASE_URL: `sqlite:${join(dir, 'board.db')}`, EMBEDDINGS: 'none', BASE_URL: 'http://board.test' }));

/** Sends raw bytes and reads until the server closes or a whole response has arrived. */
function raw(bytes: Buffer | string, opts: { keepOpen?: boolean } = {}): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let data = '';
    const done = () => {
      const [head = '', ...rest] = data.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    };
    socket.on('data', (d) => {
      data += d.toString('latin1');
      const m = /content-length: (\d+)/i.exec(data);
      const at = data.indexOf('\r\n\r\n');
      if (m && at >= 0 && data.length - at - 4 >= Number(m[1])) {
        socket.destroy();
        done();
      }
    });
    socket.on('end', done);
    socket.on('error', reject);
    socket.write(bytes);
    if (!opts.keepOpen) socket.end();
  });
}

const CASES: [string, Buffer | string, number, string][] = [
  ['control bytes in the path', 'GET /p/\x01\x02 HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad-request'],
  ['non-ASCII bytes in the path', Buffer.concat([Buffer.from('GET /topics/'), Buffer.from([0xc3, 0xa9]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]), 400, 'bad-request'],
  ['a bad method', 'G@T / HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad-request'],
  ['duplicate Content-Length', 'POST /findings HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 400, 'bad-request'],
  ['bad chunking', 'POST /findings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n', 400, 'bad-request'],
  ['headers over 16 KB', `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'header-fields-too-large'],
  ['an unknown Expect', 'POST /findings HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}', 417, 'expectation-failed'],
  ['a missing Host', 'GET /health HTTP/1.1\r\n\r\n', 400, 'bad-request'],
  ['an unparsable Host', 'GET /health HTTP/1.1\r\nHost: exa mple:99x\r\n\r\n', 400, 'bad-request'],
];

describe('refusals below the app are problem documents', () => {
  it.each(CASES)('%s → %i %s', async (_, bytes, status, slug) => {
    const res = await raw(bytes);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toBe('application/problem+json');
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ type: `http://board.test/problems/${slug}`, status });
    expect(body.title.length).toBeGreaterThan(0);
    // The problem type explains itself.
    expect((await fetch(`http://127.0.0.1:${server.port}/problems/${slug}`)).status).toBe(200);
  });

  it('Expect: 100-continue still works', async () => {
    const body = JSON.stringify({ content: 'sent after 100 Continue', topics: ['http'] });
    const res = await raw(`POST /findings HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(res.status).toBe(100);
    expect(res.body).toMatch(/^HTTP\/1.1 201 Created/);
  });

  it('a client that disconnects mid-body is not an error', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write('POST /findings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"content":"half');
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
    });
    // The server still serves, and logged nothing at error level (once it has logged the hang-up at all).
    expect((await fetch(`http://127.0.0.1:${server.port}/health`)).status).toBe(200);
    for (let i = 0; i < 50 && !/client closed the connection|unhandled error/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(server.output()).toContain('client closed the connection before the request was read');
    expect(loggedErrors(server.output())).toEqual([]);
  });
});
