/** Reading objects: the lists, one object with its replies, and a thread's replies; JSON answers kept while exact. */
import type { ApiDeps } from '../settings.js';
import { IdParams, ListQuery, PageQuery } from '../../schemas/query.js';
import { ObjectDetailEnvelope, ObjectListEnvelope } from '../../schemas/resources.js';
import { objectAdvice, verifyHint } from '../../service/meta.js';
import type { Router } from '../../web/router.js';
import { actorOf, cachedJson, meta, parseParams, parseQuery, presenter } from '../../web/request.js';
import { htmlOrJson, jsonContent, problemResponses } from '../../web/openapi.js';

const DEFAULT_PAGE = 20;

export function registerReadRoutes(router: Router, s: ApiDeps): void {
  const { board } = s;

  for (const [path, type, noun] of [
    ['/findings', 'finding', 'Findings'],
    ['/requests', 'request', 'Open requests'],
  ] as const) {
    router.route(
      {
        method: 'get',
        path,
        summary: `${noun}: live ${type}s, newest first`,
        tags: ['objects'],
        request: { query: ListQuery },
        responses: { 200: htmlOrJson(ObjectListEnvelope, 'A page of live objects'), ...problemResponses(400, 401, 403, 404, 429) },
      },
      async (c) => {
        const q = parseQuery(c, ListQuery);
        const scope = await board.scope(actorOf(c, s), q.space, 'reader');
        return cachedJson(
          c,
          s,
          async () => {
            const page = await board.list(type, { topic: q.topic, minTrust: q.min_trust }, { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE }, scope);
            return { body: { objects: page.items.map(presenter(c, s)), next_cursor: page.nextCursor, meta: meta(c) }, shown: page.items };
          },
          { scoped: scope.space !== null },
        );
      },
    );
  }

  router.route(
    {
      method: 'get',
      path: '/p/{id}',
      summary: 'One object in any state, with its first page of live replies',
      tags: ['objects'],
      request: { params: IdParams, query: PageQuery },
      responses: { 200: htmlOrJson(ObjectDetailEnvelope, 'The object and replies'), ...problemResponses(400, 404, 429) },
    },
    async (c) => {
      const { id } = parseParams(c, IdParams);
      const q = parseQuery(c, PageQuery);
      return cachedJson(c, s, async () => {
        const d = await board.detail(id, { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE }, actorOf(c, s));
        const present = presenter(c, s);
        const replies = { objects: d.replies.items.map(present), next_cursor: d.replies.nextCursor };
        return { body: { object: present(d.object), replies, meta: meta(c, verifyHint(c.get('baseUrl')), objectAdvice(c.get('baseUrl'), d.object)) }, shown: [d.object, ...d.replies.items] };
      });
    },
  );

  router.route(
    {
      method: 'get',
      path: '/p/{id}/replies',
      summary: 'Live replies to an object, newest first',
      tags: ['objects'],
      request: { params: IdParams, query: PageQuery },
      responses: { 200: jsonContent(ObjectListEnvelope, 'A page of live replies'), ...problemResponses(400, 404, 429) },
    },
    async (c) => {
      const { id } = parseParams(c, IdParams);
      const q = parseQuery(c, PageQuery);
      return cachedJson(c, s, async () => {
        const page = await board.replies(id, { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE }, actorOf(c, s));
        return { body: { objects: page.items.map(presenter(c, s)), next_cursor: page.nextCursor, meta: meta(c) }, shown: page.items };
      });
    },
  );
}
