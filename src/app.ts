/**
 * createApp(wiring): the whole HTTP surface as a Hono app: the shared middleware, then each
 * transport (pages, JSON API, MCP, events) over the service layer, each given the settings it
 * reads. No side effects at import; the caller owns the store, kv and clock and closes them.
 */
import { Hono } from 'hono';
import type { Config } from './config.js';
import { registerEventRoutes } from './events/routes.js';
import { renderErrorPage } from './html/pages/error-page.js';
import { registerPages } from './html/routes.js';
import { registerApi } from './http/api.js';
import { KeyDirectory } from './identity/key-directory.js';
import { registerMcpRoutes } from './mcp/routes.js';
import type { Kv } from './ports/kv.js';
import type { Store } from './ports/store.js';
import type { BoardServices } from './service/services.js';
import type { AppEnv } from './web/env.js';
import { admission } from './web/middleware/admission.js';
import { cors } from './web/middleware/cors.js';
import { limits } from './web/middleware/limits.js';
import { requestContext } from './web/middleware/request-context.js';
import { signatures } from './web/middleware/signature.js';
import { spaceTokens } from './web/middleware/space-token.js';
import { TOKEN_PREFIX } from './service/spaces.js';
import { answerProblems } from './web/problem-answers.js';
import { Router } from './web/router.js';
import type { TransportDeps, WebSettings } from './web/services.js';

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
  const { board, searcher, events, readCache, keys, quarantines, spaces, promotions, health, registry, clock, log, metrics } = w;
  return { board, searcher, events, readCache, keys, quarantines, spaces, promotions, health, registry, clock, log, metrics, web, settings };
}

/** Signatures first, then space tokens, then rate limits: signed callers are limited per author and tokens per token, not per address. */
function guard(app: Hono<AppEnv>, w: AppWiring) {
  const { config, kv, clock, log } = w;
  const s = config.signatures;
  const limited = limits(config.rateLimits, { kv, clock, trustProxy: config.trustProxy, onKvError: (err) => log.warn({ err }, 'kv store failed; request served without rate limiting') });
  const directory = new KeyDirectory({
    kv,
    clock,
    minCacheSeconds: s.directoryMinCacheSeconds,
    maxCacheSeconds: s.directoryMaxCacheSeconds,
    failureCacheSeconds: s.directoryFailureCacheSeconds,
    localEntries: s.directoryLocalEntries,
    fetch: { allowPrivateNetwork: config.allowPrivateNetwork, timeoutMs: s.directoryTimeoutMs, maxBytes: s.directoryMaxBytes },
  });
  app.use(
    signatures({
      identity: w.store.identity,
      kv,
      directory,
      // Naming a key directory makes the board fetch it: that costs the requester a write.
      chargeDirectoryFetch: limited.chargeAddress,
      clock,
      settings: { skewSeconds: s.skewSeconds, maxBodyBytes: config.maxBodyBytes, allowHttpAgents: config.allowPrivateNetwork },
      onKvError: (err) => log.warn({ err }, 'kv store failed; a signed request was refused'),
    }),
  );
  app.use(spaceTokens({ prefix: TOKEN_PREFIX, activeToken: (secret) => w.spaces.activeToken(secret) }));
  app.use(limited.middleware);
  return limited;
}

export function createApp(services: AppWiring): Hono<AppEnv> {
  const { config, clock, log, metrics } = services;
  const app = new Hono<AppEnv>();
  const router = new Router(app);
  app.use(requestContext({ baseUrl: config.baseUrl, trustProxy: config.trustProxy, metrics, log }));
  app.use(cors('GET, HEAD, POST, PUT, DELETE'));
  // Before signatures and rate limits: a request the board cannot serve now costs it nothing more.
  app.use(admission(config.shedding, () => metrics.shed()));
  const { chargeWrite } = guard(app, services);

  const { limits: boardLimits, operator, events } = config;
  // Pages first: a page answers only a browser, and passes every other request to its JSON twin.
  registerPages(router, forTransport(services, { limits: boardLimits, operator }));
  registerMcpRoutes(router, forTransport(services, { limits: boardLimits, baseUrl: config.baseUrl, maxStreamsPerClient: events.maxStreamsPerClient }), chargeWrite);
  registerEventRoutes(router, forTransport(services, { heartbeatMs: events.heartbeatMs, retryMs: events.retryMs, maxStreamsPerClient: events.maxStreamsPerClient }));
  registerApi(
    router,
    forTransport(services, { limits: boardLimits, operator, adminToken: config.adminToken, metricsToken: config.metricsToken, maxStreamsPerClient: events.maxStreamsPerClient }),
  );
  answerProblems(app, { router, metrics, log, errorPage: (problem) => renderErrorPage(problem, clock.now()) });
  return app;
}
