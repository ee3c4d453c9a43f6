/**
 * The site for people: each page answers a GET whose Accept lists text/html, on the same path
 * as its JSON twin; any other request passes on to the JSON route (registered after these).
 */
import type { Handler } from 'hono';
import type { BoardLimits } from '../domain/limits.js';
import { notFound, type ErrorCode } from '../domain/errors.js';
import { PROBLEMS } from '../schemas/problems.js';
import { IdParams, ListQuery, PageQuery, SearchQuery, ServerParams, ToolParams, TopicQuery, TopicsQuery } from '../schemas/query.js';
import { ServersQuery } from '../schemas/registry.js';
import { aboutDocument, BOARD_DESCRIPTION, type OperatorSettings } from '../service/about.js';
import { presentVote } from '../service/present.js';
import { searchAnswer } from '../service/search/search-answer.js';
import type { AppEnv } from '../web/env.js';
import { htmlRequested, parseParams, parseQuery, presenter, topicSlugParam } from '../web/request.js';
import type { Router } from '../web/router.js';
import type { TransportDeps } from '../web/services.js';
import { renderAboutPage, renderHomePage, renderProblemPage } from './pages/info-pages.js';
import { renderListPage } from './pages/list-page.js';
import { renderObjectPage } from './pages/object-page.js';
import { renderSearchPage } from './pages/search-page.js';
import { renderServerPage } from './pages/server-page.js';
import { renderServersPage } from './pages/servers-page.js';
import { renderToolPage } from './pages/tool-page.js';
import { renderTopicPage, renderTopicsPage } from './pages/topics-page.js';
import { STYLESHEET } from './style.js';

export interface PageSettings {
  limits: BoardLimits;
  operator: OperatorSettings;
}

/** Votes shown on an object's page; the rest are in GET /p/{id}/votes. */
const VOTES_SHOWN = 20;
const DEFAULT_PAGE = 20;
const HOME_SHOWN = 5;
const HOME_TOPICS = 12;

type Page = (c: Parameters<Handler<AppEnv>>[0]) => Promise<Response> | Response;

export function registerPages(router: Router, s: TransportDeps<PageSettings>): void {
  const { board, clock } = s;
  const { limits } = s.settings;
  /** A page for browsers; every other request goes on to the JSON route of the same path. */
  const page = (path: string, render: Page) => router.page('get', path, (c, next) => (htmlRequested(c) ? render(c) : next()));

  page('/', async (c) => {
    const shown = { cursor: undefined, limit: HOME_SHOWN };
    const [findings, requests, topics] = await Promise.all([board.list('finding', {}, shown), board.list('request', {}, shown), board.topTopics(HOME_TOPICS)]);
    const present = presenter(c, s);
    return c.html(renderHomePage({ now: clock.now(), description: BOARD_DESCRIPTION, findings: findings.items.map(present), requests: requests.items.map(present), topics }));
  });
  page('/about', (c) => c.html(renderAboutPage({ ...aboutDocument(s.settings.operator, c.get('baseUrl')), now: clock.now() })));
  page('/problems/{slug}', (c) => {
    const slug = c.req.param('slug') ?? '';
    const kind = Object.hasOwn(PROBLEMS, slug) ? PROBLEMS[slug as ErrorCode] : undefined;
    if (!kind) throw notFound(`No problem type "${slug.slice(0, 100)}".`);
    return c.html(renderProblemPage(slug, kind, clock.now()));
  });

  for (const [path, type, title] of [
    ['/findings', 'finding', 'Findings'],
    ['/requests', 'request', 'Open requests'],
  ] as const) {
    page(path, async (c) => {
      const q = parseQuery(c, ListQuery);
      const list = await board.list(type, { topic: q.topic, minTrust: q.min_trust }, { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE });
      return c.html(renderListPage({ now: clock.now(), title, path, objects: list.items.map(presenter(c, s)), nextCursor: list.nextCursor, topic: q.topic }));
    });
  }

  page('/p/{id}', async (c) => {
    const { id } = parseParams(c, IdParams);
    const q = parseQuery(c, PageQuery);
    const d = await board.detail(id, { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE });
    const present = presenter(c, s);
    const votes = await board.votesOf(d.object, { limit: VOTES_SHOWN });
    const newest = d.object.supersededBy === null ? null : await board.newest(d.object);
    const view = { object: present(d.object), newest: newest ? present(newest) : null, replies: d.replies.items.map(present), nextCursor: d.replies.nextCursor };
    return c.html(renderObjectPage({ now: clock.now(), ...view, votes: votes.items.map(presentVote), moreVotes: votes.nextCursor !== null }));
  });

  page('/search', async (c) => {
    // A browser arriving without a query gets the empty form rather than a 400.
    if (!new URL(c.req.url).searchParams.get('q')) return c.html(renderSearchPage({ now: clock.now(), q: '', mode: 'hybrid', related: [], degraded: [] }));
    const q = parseQuery(c, SearchQuery);
    const answer = await searchAnswer(s.searcher, q, limits.search.defaultLimit, presenter(c, s));
    return c.html(renderSearchPage({ now: clock.now(), q: q.q, mode: q.mode ?? 'hybrid', results: answer.results, related: answer.related_topics, degraded: answer.degraded }));
  });

  page('/topics', async (c) => {
    const q = parseQuery(c, TopicsQuery);
    const topics = await board.topTopics(q.limit ?? limits.topicsDefaultLimit);
    return c.html(renderTopicsPage({ now: clock.now(), topics, threshold: limits.topicListingThreshold }));
  });
  page('/topics/{slug}', async (c) => {
    const slug = topicSlugParam(c);
    const q = parseQuery(c, TopicQuery);
    const view = await board.topic(slug, { type: q.type, minTrust: q.min_trust }, { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE });
    const objects = view.objects.items.map(presenter(c, s));
    return c.html(renderTopicPage({ now: clock.now(), topic: view.topic, objects, nextCursor: view.objects.nextCursor, related: view.related }));
  });

  page('/servers', async (c) => {
    const q = parseQuery(c, ServersQuery);
    const view = await s.registry.list(q, c.get('baseUrl'));
    return c.html(renderServersPage({ now: clock.now(), ...view, q: q.q ?? '', verdict: q.verdict ?? null }));
  });
  page('/servers/{namespace}/{name}', async (c) => {
    const { namespace, name } = parseParams(c, ServerParams);
    return c.html(renderServerPage({ now: clock.now(), server: await s.registry.server(namespace, name, c.get('baseUrl')) }));
  });
  page('/servers/{namespace}/{name}/tools/{tool}', async (c) => {
    const p = parseParams(c, ToolParams);
    const { tool, serverName } = await s.registry.tool(p.namespace, p.name, p.tool, c.get('baseUrl'));
    return c.html(renderToolPage({ now: clock.now(), tool, serverName }));
  });

  router.page('get', '/style.css', (c) => c.body(STYLESHEET, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }));
}
