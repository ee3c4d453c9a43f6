/** Listening on a socket, and shutting down gracefully on SIGTERM/SIGINT. */
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Board$ } from './compose.js';
import type { Config } from './config.js';

export interface Running {
  server: ServerType;
  url: string;
  /** Stops accepting, lets requests in flight finish (up to the grace period), closes stores. */
  stop(): Promise<void>;
}

export async function listen(board: Board$, config: Config, log: Logger): Promise<Running> {
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: board.app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
    s.once('error', reject);
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  const url = `http://${host}:${port}`;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log.info('shutting down');
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          resolve();
        }, config.shutdownGraceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
      });
      await board.close();
      log.info('stopped');
    })());
  return { server, url, stop };
}
