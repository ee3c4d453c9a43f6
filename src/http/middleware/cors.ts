/**
 * CORS for a public API: any origin may read and write (there are no cookies to steal).
 * Headers go on through `c.header()` before the handler runs, which keeps @hono/node-server's
 * fast response path (hono/cors edits `c.res.headers`, which halves throughput).
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';

const ALLOW_HEADERS = 'Content-Type, Authorization, Signature, Signature-Input, Signature-Agent, Content-Digest, X-Request-Id';
const EXPOSE_HEADERS = 'RateLimit, RateLimit-Policy, Retry-After, Location, X-Request-Id';

export function cors(allowMethods: string): MiddlewareHandler<AppEnv> {
  return async function corsMiddleware(c, next) {
    c.header('Access-Control-Allow-Origin', '*');
    if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method')) {
      return c.body(null, 204, {
        'Access-Control-Allow-Methods': allowMethods,
        'Access-Control-Allow-Headers': ALLOW_HEADERS,
        'Access-Control-Max-Age': '86400',
      });
    }
    c.header('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    await next();
  };
}
