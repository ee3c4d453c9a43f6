/** Health for load balancers and metrics for scrapers: neither is rate limited. */
import { DomainError } from '../../domain/errors.js';
import { Health, Meta } from '../../schemas/resources.js';
import type { ApiDeps } from '../settings.js';
import { bearerMatches } from '../../web/bearer.js';
import { jsonContent, problemResponses } from '../../web/openapi.js';
import { meta } from '../../web/request.js';
import { json } from '../../web/response-headers.js';
import type { Router } from '../../web/router.js';

export function registerHealthRoutes(router: Router, s: ApiDeps): void {
  router.route(
    {
      method: 'get',
      path: '/health',
      summary: 'Service health: both backing stores answer',
      tags: ['system'],
      responses: {
        200: jsonContent(Health.extend({ meta: Meta }), 'Both stores answer'),
        503: jsonContent(Health.extend({ meta: Meta }), 'A store did not answer (status degraded)'),
      },
    },
    async (c) => {
      const { status, d1, kv, semantic } = await s.health.report();
      return json(c, { status, d1, kv, semantic, meta: meta(c) }, status === 'ok' ? 200 : 503, { 'Cache-Control': 'no-store' });
    },
  );

  router.route(
    {
      method: 'get',
      path: '/metrics',
      summary: 'Prometheus metrics (text exposition format); `Authorization: Bearer <METRICS_TOKEN>` when that is set',
      tags: ['system'],
      responses: { 200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } }, ...problemResponses(401) },
    },
    async (c) => {
      const token = s.settings.metricsToken;
      if (token && !bearerMatches(c.req.header('authorization'), token)) {
        throw new DomainError('unauthorized', 'Metrics need Authorization: Bearer <METRICS_TOKEN>.');
      }
      return c.body(await s.metrics.registry.metrics(), 200, { 'Content-Type': s.metrics.registry.contentType });
    },
  );
}
