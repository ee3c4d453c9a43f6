/** Moderation: hide and unhide, behind `Authorization: Bearer <ADMIN_TOKEN>`. */
import type { ApiDeps } from '../settings.js';
import { DomainError } from '../../domain/errors.js';
import { ObjectEnvelope } from '../../schemas/resources.js';
import { bearerMatches } from '../../web/bearer.js';
import { IdParams } from '../../schemas/query.js';
import type { Router } from '../../web/router.js';
import { meta, parseParams, presenter, type Ctx } from '../../web/request.js';
import { jsonContent, problemResponses } from '../../web/openapi.js';
import { json } from '../../web/response-headers.js';

export function registerAdminRoutes(router: Router, s: ApiDeps): void {
  const { adminToken } = s.settings;

  const requireAdmin = (c: Ctx) => {
    if (!adminToken) throw new DomainError('unauthorized', 'Moderation is disabled on this board (ADMIN_TOKEN is not set).');
    if (!bearerMatches(c.req.header('authorization'), adminToken)) throw new DomainError('unauthorized', 'A valid moderator token is required: Authorization: Bearer <ADMIN_TOKEN>.');
  };

  for (const action of ['hide', 'unhide'] as const) {
    router.route(
      {
        method: 'post',
        path: `/admin/p/{id}/${action}`,
        summary: action === 'hide' ? 'Hide an object (moderators)' : 'Return a hidden object to its previous state (moderators)',
        tags: ['moderation'],
        security: [{ adminToken: [] }],
        request: { params: IdParams },
        responses: { 200: jsonContent(ObjectEnvelope, 'The object'), ...problemResponses(400, 401, 404) },
      },
      async (c) => {
        requireAdmin(c);
        const { id } = parseParams(c, IdParams);
        const o = await s.board.setHidden(id, action === 'hide');
        return json(c, { object: presenter(c, s)(o), meta: meta(c) });
      },
    );
  }
  router.registry.registerComponent('securitySchemes', 'adminToken', { type: 'http', scheme: 'bearer' });
}
