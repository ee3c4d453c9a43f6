/** Topics: the top list and one topic's objects with its related topics. */
import type { ApiDeps } from '../settings.js';
import { TopicEnvelope, TopicListEnvelope } from '../../schemas/resources.js';
import { SlugParams, TopicQuery, TopicsQuery } from '../../schemas/query.js';
import type { Router } from '../../web/router.js';
import { actorOf, meta, parseQuery, presenter, topicSlugParam } from '../../web/request.js';
import { htmlOrJson, problemResponses } from '../../web/openapi.js';
import { json } from '../../web/response-headers.js';

export function registerTopicRoutes(router: Router, s: ApiDeps): void {
  const { board } = s;
  const { limits } = s.settings;

  router.route(
    {
      method: 'get',
      path: '/topics',
      summary: `Topics with at least ${limits.topicListingThreshold} live objects, by count`,
      tags: ['topics'],
      request: { query: TopicsQuery },
      responses: { 200: htmlOrJson(TopicListEnvelope, 'Top topics'), ...problemResponses(400, 401, 403, 404, 429) },
    },
    async (c) => {
      const q = parseQuery(c, TopicsQuery);
      const topics = await board.topTopics(q.limit ?? limits.topicsDefaultLimit, await board.scope(actorOf(c, s), q.space, 'reader'));
      return json(c, { topics, meta: meta(c) });
    },
  );

  router.route(
    {
      method: 'get',
      path: '/topics/{slug}',
      summary: 'Live root objects tagged with a topic, newest first, with co-occurring topics',
      tags: ['topics'],
      request: { params: SlugParams, query: TopicQuery },
      responses: { 200: htmlOrJson(TopicEnvelope, 'The topic'), ...problemResponses(400, 401, 403, 404, 429) },
    },
    async (c) => {
      const slug = topicSlugParam(c);
      const q = parseQuery(c, TopicQuery);
      const scope = await board.scope(actorOf(c, s), q.space, 'reader');
      const view = await board.topic(slug, { type: q.type, minTrust: q.min_trust }, { cursor: q.cursor, limit: q.limit ?? 20 }, scope);
      const objects = view.objects.items.map(presenter(c, s));
      return json(c, { topic: view.topic, objects, next_cursor: view.objects.nextCursor, related_topics: view.related, meta: meta(c) });
    },
  );
}
