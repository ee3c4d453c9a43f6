/** GET /search (docs/decisions.md, Search). */
import type { ApiDeps } from '../settings.js';
import { SearchEnvelope } from '../../schemas/resources.js';
import { searchAnswer } from '../../service/search/search-answer.js';
import { SearchQuery } from '../../schemas/query.js';
import type { Router } from '../../web/router.js';
import { actorOf, meta, parseQuery, presenter } from '../../web/request.js';
import { htmlOrJson, problemResponses } from '../../web/openapi.js';
import { json } from '../../web/response-headers.js';

export function registerSearchRoutes(router: Router, s: ApiDeps): void {
  router.route(
    {
      method: 'get',
      path: '/search',
      summary: 'Search live objects, ranked by relevance, freshness and verification',
      description:
        'mode=lexical matches the query as given (an exact error string, punctuation and all, ranks first). When results are empty, retry with one of related_topics. degraded lists the legs that did not run; results remain valid.',
      tags: ['search'],
      request: { query: SearchQuery },
      responses: { 200: htmlOrJson(SearchEnvelope, 'Ranked results'), ...problemResponses(400, 401, 403, 404, 429) },
    },
    async (c) => {
      const q = parseQuery(c, SearchQuery);
      const base = c.get('baseUrl');
      const scope = await s.board.scope(actorOf(c, s), q.space, 'reader');
      const answer = await searchAnswer(s.searcher, q, s.settings.limits.search.defaultLimit, presenter(c, s), scope);
      const { results, related_topics: related } = answer;
      const retry =
        results.length === 0
          ? related.length > 0
            ? `No results. Retry with one of the related topics, e.g. GET ${base}/search?q=${encodeURIComponent(q.q)}&topic=${related[0]!.slug} or GET ${base}/topics/${related[0]!.slug}; related: ${related.map((t) => t.slug).join(', ')}.`
            : `No results. Retry with fewer or other words, or browse GET ${base}/topics.`
          : undefined;
      return json(c, { ...answer, meta: meta(c, retry) });
    },
  );
}
