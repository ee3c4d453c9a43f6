/**
 * CORS for a public API: any origin may read and write (there are no cookies to steal).
 * Its headers join the request's own (response-headers.ts) before the handler runs.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';
import { addHeaders, respond } from '../response-headers.js';

const ALLOW_HEADERS = 'Content-Type, Authorization, Signature, Signature-Input, Signature-Agent, Content-Digest, X-Request-Id';
const EXPOSE_HEADERS = 'RateLimit, RateLimit-Policy, Retry-After, Location, X-Request-Id';

export function cors(allowMethods: string): MiddlewareHandler<AppEnv> {
  return async function corsMiddleware(c, next) {
    if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method')) {
      return respond(c, null, 204, {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Methods': allowMethods,
        'Access-Control-Allow-Headers': ALLOW_HEADERS,
        'Access-Control-Max-Age': '86400',
      });
    }
    addHeaders(c, { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': EXPOSE_HEADERS });
    await next();
  };
}
