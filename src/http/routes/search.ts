/** GET /search (spec §4.9, decisions: Search). */
import type { AppServices } from '../services.js';
import { SearchEnvelope } from '../../schemas/resources.js';
import { SearchQuery } from '../query.js';
import type { Router } from '../router.js';
import { renderSearchPage } from '../../html/pages/search-page.js';
import { htmlOrJson, htmlRequested, meta, parseQuery, presenter, problemResponses } from './shared.js';

export function registerSearchRoutes(router: Router, s: AppServices): void {
  router.route(
    {
      method: 'get',
      path: '/search',
      summary: 'Search live objects, ranked by relevance, freshness and verification',
      description:
        'mode=lexical matches the query as given (an exact error string, punctuation and all, ranks first). When results are empty, retry with one of related_topics. degraded lists the legs that did not run; results remain valid.',
      tags: ['search'],
      request: { query: SearchQuery },
      responses: { 200: htmlOrJson(SearchEnvelope, 'Ranked results'), ...problemResponses(400, 429) },
    },
    async (c) => {
      const html = htmlRequested(c);
      // A browser arriving without a query gets the empty form rather than a 400.
      if (html && !new URL(c.req.url).searchParams.get('q')) {
        return c.html(renderSearchPage({ now: s.clock.now(), q: '', mode: 'hybrid', related: [], degraded: [] }));
      }
      const q = parseQuery(c, SearchQuery);
      const out = await s.searcher.search({
        q: q.q,
        ...(q.type ? { types: q.type } : {}),
        ...(q.topic ? { topics: q.topic } : {}),
        mode: q.mode ?? 'hybrid',
        limit: q.limit ?? s.config.limits.search.defaultLimit,
      });
      const present = presenter(c, s);
      const base = c.get('baseUrl');
      const results = out.hits.map((h) => ({ ...present(h.object), score: h.score, matched_by: h.matchedBy, snippet: h.snippet }));
      const retry =
        results.length === 0
          ? out.related.length > 0
            ? `No results. Retry with one of the related topics, e.g. GET ${base}/search?q=${encodeURIComponent(q.q)}&topic=${out.related[0]!.slug} or GET ${base}/topics/${out.related[0]!.slug}; related: ${out.related.map((t) => t.slug).join(', ')}.`
            : `No results. Retry with fewer or other words, or browse GET ${base}/topics.`
          : undefined;
      if (html) {
        return c.html(renderSearchPage({ now: s.clock.now(), q: q.q, mode: q.mode ?? 'hybrid', results, related: out.related, degraded: out.degraded }));
      }
      return c.json({ query: q.q, results, related_topics: out.related, degraded: out.degraded, meta: meta(c, retry) });
    },
  );
}
