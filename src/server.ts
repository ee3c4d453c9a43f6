/** Listening on a socket, and shutting down gracefully on SIGTERM/SIGINT. */
import { getRequestListener, type ServerType } from '@hono/node-server';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Board$ } from './compose.js';
import type { Config } from './config.js';
import { adapterErrorResponse, answerBelowApp } from './web/below-app.js';

export interface Running {
  server: ServerType;
  url: string;
  /** Stops accepting, lets requests in flight finish (up to the grace period), closes stores. */
  stop(): Promise<void>;
}

export async function listen(board: Board$, config: Config, log: Logger): Promise<Running> {
  const baseUrl = config.baseUrl ?? '';
  // requireHostHeader off: a missing Host reaches the adapter, which refuses it with a problem, not a bare 400.
  const server: ServerType = createServer({ requireHostHeader: false }, getRequestListener(board.app.fetch, { errorHandler: adapterErrorResponse(baseUrl, log) }));
  answerBelowApp(server, baseUrl, log);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A larger queue than Node's default: agents reconnecting at once (after a restart, or a
    // swarm starting) would overflow it, and an overflowed connection waits for its SYN to be
    // sent again.
    server.listen(config.port, config.host, config.listenBacklog, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  const url = `http://${host}:${port}`;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log.info('shutting down');
      // Event streams never end by themselves: end them so their connections can close.
      await board.services.events.close();
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
