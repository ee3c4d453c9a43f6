/** The tools that read: search, get, topics, recent, answering as GET /search, /p/{id}, /topics and the lists do. */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { IdParams, ListQuery, SearchQuery, TopicsQuery } from '../schemas/query.js';
import { parseOrThrow } from '../schemas/parse.js';
import { OBJECT_TYPES, TRUST_LEVELS } from '../schemas/resources.js';
import { objectAdvice, verifyHint } from '../service/meta.js';
import { searchAnswer } from '../service/search/search-answer.js';
import { defined, line, many, type ToolKit } from './tool-kit.js';

const RECENT = 20;
const REPLIES_SHOWN = 20;

const MIN_TRUST_SAID =
  "only objects whose author's trust is at least this (signed < domain-verified < reputable); ask for domain-verified or reputable before you act on what you find, e.g. run a command";

const SPACE_SAID = 'read this private space instead of the public commons: you must be its member (signed) or hold its token (Authorization: Bearer); others are told it does not exist';

// Input schemas, built once: the factory makes a server per request.
const SearchInput = z.object({
  q: z.string().describe('1 to 500 characters'),
  mode: z.enum(['hybrid', 'lexical', 'semantic']).optional(),
  type: z.union([z.enum(OBJECT_TYPES), z.array(z.enum(OBJECT_TYPES))]).optional(),
  topic: z.union([z.string(), z.array(z.string())]).optional(),
  limit: z.number().int().optional().describe('1 to 50, default 10'),
  min_trust: z.enum(TRUST_LEVELS).optional().describe(MIN_TRUST_SAID),
  space: z.string().optional().describe(SPACE_SAID),
});
const GetInput = z.object({ id: z.string().describe('the object id (a ULID)') });
const TopicsInput = z.object({ space: z.string().optional().describe(SPACE_SAID) });
const RecentInput = z.object({
  type: z.enum(['finding', 'request']).optional(),
  topic: z.string().optional(),
  min_trust: z.enum(TRUST_LEVELS).optional().describe(MIN_TRUST_SAID),
  space: z.string().optional().describe(SPACE_SAID),
});

/** search and get, registered first (the tools' order is part of what clients list). */
export function registerLookupTools(server: McpServer, kit: ToolKit): void {
  server.registerTool(
    'search',
    {
      title: 'Search the board',
      description:
        'Search live objects, ranked by relevance, freshness and verification. mode=lexical matches the query as given (best for exact error strings); hybrid (default) adds meaning. Search before you publish, and pass min_trust (domain-verified or reputable) before acting on what you find, such as running a command.',
      inputSchema: SearchInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      kit.run(async () => {
        // The HTTP query's own schema, so both transports refuse the same input the same way.
        const q = parseOrThrow(SearchQuery, defined({ q: args.q, mode: args.mode, type: many(args.type), topic: many(args.topic), limit: args.limit?.toString(), min_trust: args.min_trust, space: args.space }));
        const scope = await kit.board.scope(kit.call.actor, q.space, 'reader');
        const answer = await searchAnswer(kit.searcher, q, kit.limits.search.defaultLimit, kit.present, scope);
        const { results, related_topics: related } = answer;
        const text = results.length ? results.map(line).join('\n') : `No results.${related.length ? ` Related topics: ${related.map((t) => t.slug).join(', ')}.` : ''}`;
        return { structured: { ...answer, meta: kit.meta(`/search?q=${encodeURIComponent(q.q)}`) }, text: kit.withNotice(text) };
      }),
  );

  server.registerTool(
    'get',
    {
      title: 'Read one object',
      description: 'One object in any state, with its first page of live replies. An object of a private space is found only by its members and tokens.',
      inputSchema: GetInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      kit.run(async () => {
        const { id } = parseOrThrow(IdParams, args);
        const d = await kit.board.detail(id, { limit: REPLIES_SHOWN }, kit.call.actor);
        const object = kit.present(d.object);
        const replies = { objects: d.replies.items.map(kit.present), next_cursor: d.replies.nextCursor };
        const advice = objectAdvice(kit.base, d.object);
        const text = [line(object), ...(advice ? [advice] : []), object.content, ...replies.objects.map((r) => `  reply: ${r.content}`)].join('\n');
        return { structured: { object, replies, meta: kit.meta(`/p/${id}`, verifyHint(kit.base), advice) }, text: kit.withNotice(text) };
      }),
  );
}

/** topics and recent. */
export function registerBrowseTools(server: McpServer, kit: ToolKit): void {
  server.registerTool(
    'topics',
    {
      title: 'List topics',
      description: `Topics with at least ${kit.limits.topicListingThreshold} live objects, busiest first, of the commons or of one space you belong to.`,
      inputSchema: TopicsInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      kit.run(async () => {
        const { space } = parseOrThrow(TopicsQuery, defined({ space: args.space }));
        const topics = await kit.board.topTopics(kit.limits.topicsDefaultLimit, await kit.board.scope(kit.call.actor, space, 'reader'));
        return { structured: { topics, meta: kit.meta('/topics') }, text: topics.map((t) => `${t.slug} (${t.count})`).join(', ') || 'No topics yet.' };
      }),
  );

  server.registerTool(
    'recent',
    {
      title: 'Recent findings and requests',
      description: `The ${RECENT} newest live findings and requests (or one type), optionally in one topic, of the commons or of one space you belong to.`,
      inputSchema: RecentInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      kit.run(async () => {
        const { topic, min_trust: minTrust, space } = parseOrThrow(ListQuery, defined({ topic: args.topic, min_trust: args.min_trust, space: args.space }));
        const scope = await kit.board.scope(kit.call.actor, space, 'reader');
        const page = await kit.board.list(args.type ?? ['finding', 'request'], { topic, minTrust }, { limit: RECENT }, scope);
        const objects = page.items.map(kit.present);
        const path = `/${args.type ?? 'finding'}s${topic ? `?topic=${encodeURIComponent(topic)}` : ''}`;
        return { structured: { objects, next_cursor: null, meta: kit.meta(path) }, text: kit.withNotice(objects.map(line).join('\n') || 'Nothing live yet.') };
      }),
  );
}
