/** Writing objects: publishing, replying, withdrawing and promoting (docs/decisions.md: Deduplication, Lifetimes and states). */
import type { ApiDeps } from '../settings.js';
import type { RootType } from '../../domain/model.js';
import { CreateObjectBody, CreateReplyBody, CreateStatusBody, ObjectEnvelope } from '../../schemas/resources.js';
import { IdParams } from '../../schemas/query.js';
import { objectAdvice, verifyHint } from '../../service/meta.js';
import type { Router } from '../../web/router.js';
import { actorOf, jsonBody, meta, parseParams, presenter, type Ctx } from '../../web/request.js';
import { jsonContent, problemResponses } from '../../web/openapi.js';
import { json } from '../../web/response-headers.js';

const PUBLISH: { path: string; type: RootType; body: typeof CreateObjectBody | typeof CreateStatusBody; summary: string }[] = [
  { path: '/findings', type: 'finding', body: CreateObjectBody, summary: 'Publish a finding (a reusable discovery)' },
  { path: '/requests', type: 'request', body: CreateObjectBody, summary: 'Publish a request (an open question)' },
  { path: '/artifacts', type: 'artifact', body: CreateObjectBody, summary: 'Publish an artifact (needs source_url)' },
  { path: '/status', type: 'status', body: CreateStatusBody, summary: 'Publish a short-lived status note' },
];

export function registerWriteRoutes(router: Router, s: ApiDeps): void {
  const { board } = s;

  /** 201 with Location for a new object, 200 with `deduplicated: true` for an identical live one. */
  const published = (c: Ctx, r: { object: Parameters<ReturnType<typeof presenter>>[0]; created: boolean }) => {
    const object = presenter(c, s)(r.object);
    const body = { object, ...(r.created ? {} : { deduplicated: true }), meta: meta(c, verifyHint(c.get('baseUrl')), objectAdvice(c.get('baseUrl'), r.object)) };
    return r.created ? json(c, body, 201, { Location: object.url }) : json(c, body);
  };

  for (const p of PUBLISH) {
    router.route(
      {
        method: 'post',
        path: p.path,
        summary: p.summary,
        tags: ['objects'],
        request: { body: { required: true, content: { 'application/json': { schema: p.body } } } },
        responses: {
          201: jsonContent(ObjectEnvelope, 'Created'),
          200: jsonContent(ObjectEnvelope, 'An identical live object already exists; returned with deduplicated: true'),
          ...problemResponses(400, 413, 415, 429),
        },
      },
      async (c) => published(c, await board.publish(p.type, await jsonBody(c, s), actorOf(c, s))),
    );
  }

  router.route(
    {
      method: 'post',
      path: '/p/{id}/replies',
      summary: 'Reply to a live root object (creates an object of type response)',
      tags: ['objects'],
      request: { params: IdParams, body: { required: true, content: { 'application/json': { schema: CreateReplyBody } } } },
      responses: {
        201: jsonContent(ObjectEnvelope, 'Created'),
        200: jsonContent(ObjectEnvelope, 'An identical live reply already exists; returned with deduplicated: true'),
        ...problemResponses(400, 404, 413, 415, 429),
      },
    },
    async (c) => {
      const { id } = parseParams(c, IdParams);
      const body = await jsonBody(c, s);
      return published(c, await board.reply(id, body, actorOf(c, s)));
    },
  );

  router.route(
    {
      method: 'delete',
      path: '/p/{id}',
      summary: 'Withdraw your own object (signed requests only)',
      tags: ['objects'],
      request: { params: IdParams },
      responses: { 200: jsonContent(ObjectEnvelope, 'The withdrawn object'), ...problemResponses(400, 401, 403, 404) },
    },
    async (c) => {
      const { id } = parseParams(c, IdParams);
      return json(c, { object: presenter(c, s)(await board.withdraw(id, actorOf(c, s))), meta: meta(c) });
    },
  );

  router.route(
    {
      method: 'post',
      path: '/p/{id}/promote',
      summary: "Publish a copy of a live space object into the public commons (the space's admins)",
      description:
        'The copy is a new object with the same type, title, content, topics, source and author, and nothing that names the space; the space object records `promoted_to`. 201 with the copy; 200 with the copy made before.',
      tags: ['spaces'],
      request: { params: IdParams },
      responses: { 201: jsonContent(ObjectEnvelope, 'The public copy'), 200: jsonContent(ObjectEnvelope, 'The copy made before'), ...problemResponses(400, 401, 403, 404, 409, 429) },
    },
    async (c) => {
      const { id } = parseParams(c, IdParams);
      const { copy, created } = await s.promotions.promote(id, actorOf(c, s));
      return json(c, { object: presenter(c, s)(copy), meta: meta(c) }, created ? 201 : 200);
    },
  );
}
