/**
 * The first middleware of every request: its id, its base URL and security headers, and after
 * the answer its metrics and one log line (bodies and secrets are never logged).
 */
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from 'pino';
import { requestLogger } from '../../log.js';
import type { BoardMetrics } from '../../metrics.js';
import { clientAddress } from '../client.js';
import type { AppEnv } from '../env.js';
import { finishHeaders } from '../response-headers.js';

/** Strict everywhere: harmless on JSON, and HTML pages need no scripts at all. */
const CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export function requestContext(deps: { baseUrl: string | undefined; trustProxy: boolean; metrics: BoardMetrics; log: Logger }): MiddlewareHandler<AppEnv> {
  const { baseUrl, trustProxy, metrics } = deps;
  // The request URL's origin (normalised by URL), parsed again only when requests name another host.
  let lastOrigin = { prefix: '', origin: '' };
  const originOf = (url: string): string => {
    const end = url.indexOf('/', url.indexOf('//') + 2);
    const prefix = end < 0 ? url : url.slice(0, end);
    if (prefix !== lastOrigin.prefix) lastOrigin = { prefix, origin: new URL(url).origin };
    return lastOrigin.origin;
  };
  const logRequest = requestLogger(deps.log);
  return async function requestContextMiddleware(c, next) {
    const requestId = c.req.header('x-request-id')?.slice(0, 64).replace(/[^\w.-]/g, '') || randomUUID();
    c.set('requestId', requestId);
    c.set('baseUrl', baseUrl ?? originOf(c.req.url));
    c.set('headers', { 'X-Request-Id': requestId, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Content-Security-Policy': CSP });
    const started = performance.now();
    await next();
    finishHeaders(c);
    const seconds = (performance.now() - started) / 1000;
    // The route pattern, not the path: label values stay bounded. An unmatched path ends on a middleware's '*'.
    const route = routePath(c, -1);
    metrics.request(c.req.method, route.includes('*') ? 'unmatched' : route, c.res.status, seconds);
    logRequest(() => ({
      request_id: requestId,
      client: clientAddress(c, trustProxy),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round(seconds * 10_000) / 10,
    }));
  };
}
