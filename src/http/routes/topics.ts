/** Topics: the top list and one topic's page (spec §4.7, §4.8). */
import type { AppServices } from '../services.js';
import { normalizeFilterTopic } from '../../domain/topics.js';
import { renderTopicPage, renderTopicsPage } from '../../html/pages/topics-page.js';
import { SPEC_LIMITS } from '../../domain/limits.js';
import { TopicEnvelope, TopicListEnvelope } from '../../schemas/resources.js';
import { invalid } from '../../domain/errors.js';
import { SlugParams, TopicQuery, TopicsQuery } from '../query.js';
import type { Router } from '../router.js';
import { htmlOrJson, htmlRequested, meta, parseQuery, presenter, problemResponses } from './shared.js';
import { json } from '../response-headers.js';

export function registerTopicRoutes(router: Router, s: AppServices): void {
  const { board, config } = s;

  router.route(
    {
      method: 'get',
      path: '/topics',
      summary: `Topics with at least ${config.limits.topicListingThreshold} live objects, by count`,
      tags: ['topics'],
      request: { query: TopicsQuery },
      responses: { 200: htmlOrJson(TopicListEnvelope, 'Top topics'), ...problemResponses(400, 429) },
    },
    async (c) => {
      const html = htmlRequested(c);
      const q = parseQuery(c, TopicsQuery);
      const topics = await board.topTopics(q.limit ?? config.limits.topicsDefaultLimit);
      if (html) return c.html(renderTopicsPage({ now: s.clock.now(), topics, threshold: config.limits.topicListingThreshold }));
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
      responses: { 200: htmlOrJson(TopicEnvelope, 'The topic'), ...problemResponses(400, 404, 429) },
    },
    async (c) => {
      const html = htmlRequested(c);
      const { min, max } = SPEC_LIMITS.topicInFilter;
      const slug = normalizeFilterTopic(c.req.param('slug') ?? '', min, max);
      if (slug === null) throw invalid([{ path: 'path/slug', message: `must be a topic of ${min} to ${max} characters` }]);
      const q = parseQuery(c, TopicQuery);
      const view = await board.topic(slug, { type: q.type }, { cursor: q.cursor, limit: q.limit ?? 20 });
      const objects = view.objects.items.map(presenter(c, s));
      if (html) return c.html(renderTopicPage({ now: s.clock.now(), topic: view.topic, objects, nextCursor: view.objects.nextCursor, related: view.related }));
      return json(c, { topic: view.topic, objects, next_cursor: view.objects.nextCursor, related_topics: view.related, meta: meta(c) });
    },
  );
}
