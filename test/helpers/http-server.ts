/** A fetch-style handler served on 127.0.0.1, for tests that need a real server over a socket. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

export interface Running {
  url: string;
  origin: string;
  /** Requests received, by method and path. */
  hits: string[];
  close(): Promise<void>;
}

/** A port free on 127.0.0.1 just now: for a server that must know its own address before it starts. */
export async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Serves a fetch-style handler on 127.0.0.1 (on `port`, or any free one). */
export async function serveFetch(handler: (req: Request) => Promise<Response> | Response, path = '/mcp', port = 0): Promise<Running> {
  const hits: string[] = [];
  const server = serve({
    fetch: (req: Request) => {
      hits.push(`${req.method} ${new URL(req.url).pathname}`);
      return handler(req);
    },
    port,
    hostname: '127.0.0.1',
  }) as http.Server;
  await new Promise((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${origin}${path}`, origin, hits, close: () => closeServer(server) };
}

export function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

