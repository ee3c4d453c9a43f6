/**
 * createApp(wiring): the whole HTTP surface as a Hono app: the shared middleware, then each
 * transport (pages, JSON API, MCP, events) over the service layer, each given the settings it
 * reads. No side effects at import; the caller owns the store, kv and clock and closes them.
 */
import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { routePath } from 'hono/route';
import { DomainError, type ErrorCode } from './domain/errors.js';
import { clientAddress } from './web/client.js';
import { cors } from './web/middleware/cors.js';
import type { AppEnv } from './web/env.js';
import type { TransportDeps, WebSettings } from './web/services.js';
import type { BoardServices } from './service/services.js';
import type { Config } from './config.js';
import type { Kv } from './ports/kv.js';
import type { Store } from './ports/store.js';
import { charge, rateLimit, RateLimitedError, type RatePolicy } from './web/middleware/rate-limit.js';
import { wantsHtml } from './web/negotiate.js';
import { PROBLEM_MEDIA_TYPE, PROBLEMS, problemBody } from './schemas/problems.js';
import { finishHeaders } from './web/response-headers.js';
import { Router } from './web/router.js';
import { registerApi } from './http/api.js';
import { registerPages } from './html/routes.js';
import { registerMcpRoutes } from './mcp/routes.js';
import { registerEventRoutes } from './events/routes.js';
import { signatures } from './web/middleware/signature.js';
import { requestLogger } from './log.js';
import { KeyDirectory } from './identity/key-directory.js';
import { renderErrorPage } from './html/pages/error-page.js';

const CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Paths exempt from rate limiting: health checks and scrapes come from infrastructure, not agents. */
const UNLIMITED = new Set(['/health', '/metrics']);

/** What the composition root hands the app: the service layer and what only the shared middleware reads. */
export interface AppWiring extends BoardServices {
  config: Config;
  store: Store;
  kv: Kv;
  /** Key of the anonymous-voter hash. */
  voterSecret: string;
}

/** The service layer with the settings one transport reads. */
function forTransport<S>(w: AppWiring, settings: S): TransportDeps<S> {
  const web: WebSettings = { trustProxy: w.config.trustProxy, maxBodyBytes: w.config.maxBodyBytes, voterSecret: w.voterSecret };
  const { board, searcher, events, readCache, keys, health, registry, clock, log, metrics } = w;
  return { board, searcher, events, readCache, keys, health, registry, clock, log, metrics, web, settings };
}

export function createApp(services: AppWiring): Hono<AppEnv> {
  const { config, kv, clock, log, metrics } = services;
  const app = new Hono<AppEnv>();
  const router = new Router(app);
  // The request URL's origin (normalised by URL), parsed again only when requests name another host.
  let lastOrigin = { prefix: '', origin: '' };
  const originOf = (url: string): string => {
    const end = url.indexOf('/', url.indexOf('//') + 2);
    const prefix = end < 0 ? url : url.slice(0, end);
    if (prefix !== lastOrigin.prefix) lastOrigin = { prefix, origin: new URL(url).origin };
    return lastOrigin.origin;
  };
  const logRequest = requestLogger(log);

  app.use(async function requestContext(c, next) {
    const requestId = c.req.header('x-request-id')?.slice(0, 64).replace(/[^\w.-]/g, '') || randomUUID();
    c.set('requestId', requestId);
    c.set('baseUrl', config.baseUrl ?? originOf(c.req.url));
    // CSP strict everywhere: harmless on JSON, and HTML pages need no scripts at all.
    c.set('headers', { 'X-Request-Id': requestId, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Content-Security-Policy': CSP });
    const started = performance.now();
    await next();
    finishHeaders(c);
    const seconds = (performance.now() - started) / 1000;
    // The route pattern, not the path: label values stay bounded. An unmatched path ends on a middleware's '*'.
    const route = routePath(c, -1);
    metrics.request(c.req.method, route.includes('*') ? 'unmatched' : route, c.res.status, seconds);
    // One wide event per request; bodies and secrets are never logged.
    logRequest(() => ({
      request_id: requestId,
      client: clientAddress(c, config.trustProxy),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round(seconds * 10_000) / 10,
    }));
  });

  app.use(cors('GET, HEAD, POST, DELETE'));

  const directory = new KeyDirectory({
    kv,
    clock,
    minCacheSeconds: config.signatures.directoryMinCacheSeconds,
    maxCacheSeconds: config.signatures.directoryMaxCacheSeconds,
    failureCacheSeconds: config.signatures.directoryFailureCacheSeconds,
    fetch: { allowPrivateNetwork: config.allowPrivateNetwork, timeoutMs: config.signatures.directoryTimeoutMs, maxBytes: config.signatures.directoryMaxBytes },
  });
  const { rateLimits: r } = config;
  const anonWrites: RatePolicy = { name: 'writes', limit: r.anonWrites, windowSeconds: r.writeWindowSeconds };
  const signedWrites: RatePolicy = { name: 'signed-writes', limit: r.signedWrites, windowSeconds: r.writeWindowSeconds };
  const reads: RatePolicy = { name: 'reads', limit: r.reads, windowSeconds: r.readWindowSeconds };
  const onKvLimitError = (err: unknown) => log.warn({ err }, 'kv store failed; request served without rate limiting');
  /** Signed callers are limited per author, anonymous ones per address. */
  const writePolicy = (c: Context<AppEnv>) => {
    const author = c.get('signature')?.keyid;
    return author ? { policy: signedWrites, key: `author:${author}` } : { policy: anonWrites, key: clientAddress(c, config.trustProxy) };
  };
  const chargeWrite = async (c: Context<AppEnv>) => {
    const { policy, key } = writePolicy(c);
    const left = await charge(kv, policy, key, clock.now(), onKvLimitError);
    if (left?.over) throw new RateLimitedError(left.resetSeconds, policy.name);
  };
  // Before rate limiting: signed callers are limited per author, not per address.
  app.use(
    signatures({
      identity: services.store.identity,
      kv,
      directory,
      // Naming a key directory makes the board fetch it: that costs the requester a write.
      async chargeDirectoryFetch(c) {
        const left = await charge(kv, anonWrites, clientAddress(c, config.trustProxy), clock.now(), onKvLimitError);
        if (left?.over) throw new RateLimitedError(left.resetSeconds, anonWrites.name);
      },
      clock,
      settings: { skewSeconds: config.signatures.skewSeconds, maxBodyBytes: config.maxBodyBytes, allowHttpAgents: config.allowPrivateNetwork },
      onKvError: (err) => log.warn({ err }, 'kv store failed; signature nonce not checked'),
    }),
  );

  app.use(
    rateLimit({
      kv,
      clock,
      policyFor(c) {
        if (UNLIMITED.has(c.req.path) || c.req.method === 'OPTIONS') return null;
        const author = c.get('signature')?.keyid;
        const key = author ? `author:${author}` : clientAddress(c, config.trustProxy);
        // An MCP exchange counts as a read; its write tools charge a write on top (chargeWrite).
        if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.path === '/mcp') {
          return { policy: reads, key };
        }
        return writePolicy(c);
      },
      onKvError: onKvLimitError,
    }),
  );

  const { limits, operator, events } = config;
  // Pages first: a page answers only a browser, and passes every other request to its JSON twin.
  registerPages(router, forTransport(services, { limits, operator }));
  registerMcpRoutes(router, forTransport(services, { limits, baseUrl: config.baseUrl, maxStreamsPerClient: events.maxStreamsPerClient }), chargeWrite);
  registerEventRoutes(router, forTransport(services, { heartbeatMs: events.heartbeatMs, retryMs: events.retryMs, maxStreamsPerClient: events.maxStreamsPerClient }));
  registerApi(router, forTransport(services, { limits, operator, adminToken: config.adminToken, metricsToken: config.metricsToken, maxStreamsPerClient: events.maxStreamsPerClient }));

  const problem = (c: Context<AppEnv>, code: ErrorCode, detail?: string, err?: DomainError) => {
    const body = problemBody(code, c.get('baseUrl') ?? '', detail, err?.errors);
    const headers: Record<string, string> = {};
    if (err instanceof RateLimitedError) headers['Retry-After'] = String(err.retryAfterSeconds);
    if (code === 'unavailable') headers['Retry-After'] = '1';
    if (code === 'method-not-allowed') headers.Allow = router.allowed(c.req.path).join(', ');
    if (c.req.method === 'GET' && wantsHtml(c.req.header('accept')) && c.get('htmlPage')) {
      return c.html(renderErrorPage(body, clock.now()), body.status as 400, headers);
    }
    return c.body(JSON.stringify(body), body.status as 400, { ...headers, 'Content-Type': PROBLEM_MEDIA_TYPE });
  };

  app.notFound((c) => {
    const allowed = router.allowed(c.req.path);
    if (allowed.length > 0) {
      return problem(c, 'method-not-allowed', `${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(', ')}.`);
    }
    c.set('htmlPage', true);
    return problem(c, 'not-found', `Nothing at ${c.req.path}. The API is described at /openapi.json.`);
  });

  app.onError((err, c) => {
    if (err instanceof RateLimitedError) metrics.rateLimited(err.policy);
    if (err instanceof DomainError) return problem(c, err.code, err.detail, err);
    if (err instanceof HTTPException && err.status < 500) {
      const code = (Object.entries(PROBLEMS).find(([, p]) => p.status === err.status)?.[0] ?? 'validation-error') as ErrorCode;
      return problem(c, code, err.message || undefined);
    }
    // A client that hung up mid-body is no failure of ours; nobody will read the answer.
    if (c.req.raw.signal.aborted) {
      log.info({ request_id: c.get('requestId') }, 'client closed the connection before the request was read');
      return problem(c, 'bad-request', 'The connection closed before the request body arrived.');
    }
    log.error({ request_id: c.get('requestId'), err }, 'unhandled error');
    return problem(c, 'internal-error', 'The board failed to answer this request; it has been logged.');
  });

  return app;
}
