/** Moderation: hide and unhide, quarantines and the audit log, behind `Authorization: Bearer <ADMIN_TOKEN>`. */
import type { ApiDeps } from '../settings.js';
import { DomainError } from '../../domain/errors.js';
import { ObjectEnvelope } from '../../schemas/resources.js';
import { bearerMatches } from '../../web/bearer.js';
import { IdParams } from '../../schemas/query.js';
import type { Router } from '../../web/router.js';
import { jsonBody, meta, parseParams, parseQuery, presenter, type Ctx } from '../../web/request.js';
import { AuditEnvelope, AuditQuery, QuarantineBody, QuarantineEnvelope, QuarantineParams } from '../../schemas/moderation.js';
import type { QuarantineRecord } from '../../service/quarantine.js';
import { iso } from '../../service/present.js';
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
  registerQuarantineRoutes(router, s, requireAdmin);
  router.registry.registerComponent('securitySchemes', 'adminToken', { type: 'http', scheme: 'bearer' });
}

const presentQuarantine = (r: QuarantineRecord) => ({
  quarantine_id: r.id,
  affected: r.affected,
  source: { keyid: r.source.keyid, domain: r.source.domain },
  reason: r.reason,
  created_at: iso(r.createdAt),
  lifted_at: r.liftedAt === null ? null : iso(r.liftedAt),
});

function registerQuarantineRoutes(router: Router, s: ApiDeps, requireAdmin: (c: Ctx) => void): void {
  router.route(
    {
      method: 'post',
      path: '/admin/quarantine',
      summary: 'Quarantine a key, or every key verified for a domain (moderators)',
      description:
        'Hides every object the source wrote and takes its votes off their targets (counts, disputes and reputation re-derived), in batches while reads go on; its new writes answer 403 quarantined. 201 with what it affected; 200 with the quarantine already active for the same source.',
      tags: ['moderation'],
      security: [{ adminToken: [] }],
      request: { body: { required: true, content: { 'application/json': { schema: QuarantineBody } } } },
      responses: { 201: jsonContent(QuarantineEnvelope, 'Applied'), 200: jsonContent(QuarantineEnvelope, 'Already active'), ...problemResponses(400, 401, 413, 415) },
    },
    async (c) => {
      requireAdmin(c);
      const r = await s.quarantines.open(await jsonBody(c, s));
      return json(c, { ...presentQuarantine(r.record), meta: meta(c) }, r.created ? 201 : 200);
    },
  );
  router.route(
    {
      method: 'post',
      path: '/admin/quarantine/{quarantine_id}/lift',
      summary: 'Lift a quarantine: what it hid and took comes back (moderators)',
      description: 'Objects a moderator hid on their own stay hidden, and what another active quarantine covers stays covered. Lifting again changes nothing.',
      tags: ['moderation'],
      security: [{ adminToken: [] }],
      request: { params: QuarantineParams },
      responses: { 200: jsonContent(QuarantineEnvelope, 'Lifted'), ...problemResponses(400, 401, 404) },
    },
    async (c) => {
      requireAdmin(c);
      const { quarantine_id: id } = parseParams(c, QuarantineParams);
      const r = await s.quarantines.lift(id);
      return json(c, { ...presentQuarantine(r.record), meta: meta(c) });
    },
  );
  router.route(
    {
      method: 'get',
      path: '/admin/audit',
      summary: 'Moderation actions, newest first (moderators)',
      tags: ['moderation'],
      security: [{ adminToken: [] }],
      request: { query: AuditQuery },
      responses: { 200: jsonContent(AuditEnvelope, 'A page of the audit log'), ...problemResponses(400, 401) },
    },
    async (c) => {
      requireAdmin(c);
      const q = parseQuery(c, AuditQuery);
      const page = await s.quarantines.audit({ before: q.cursor === undefined ? undefined : Number(q.cursor), limit: q.limit ?? 50 });
      const entries = page.entries.map((e) => ({ action: e.action, target: e.target, reason: e.reason, affected: e.affected, at: iso(e.at) }));
      return json(c, { entries, next_cursor: page.next === null ? null : String(page.next), meta: meta(c) });
    },
  );
}
