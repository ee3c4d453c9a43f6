/**
 * The board as an MCP server: eight tools over the same service calls as the HTTP routes, their
 * `structuredContent` in the HTTP API's JSON shapes (meta included). Built per request by
 * createMcpHandler's factory, for one caller: its actor, base URL and write charge.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Logger } from 'pino';
import { DomainError } from '../domain/errors.js';
import type { Actor, StoredObject } from '../domain/model.js';
import type { BoardLimits } from '../domain/limits.js';
import { buildMeta, NOTICE, verifyHint } from '../service/meta.js';
import { problemBody } from '../schemas/problems.js';
import { IdParams, ListQuery, SearchQuery } from '../schemas/query.js';
import { searchAnswer } from '../service/search/search-answer.js';
import { presenterAt } from '../service/present.js';
import { ulid } from '../schemas/fields.js';
import { parseOrThrow } from '../schemas/parse.js';
import { OBJECT_TYPES, ROOT_TYPES, type BoardObject } from '../schemas/resources.js';
import type { Searcher } from '../service/search/search.js';
import type { Board } from '../service/board.js';
import { APP_VERSION } from '../version.js';

export interface McpDeps {
  board: Board;
  searcher: Searcher;
  /** The board's limits: the search page size and the topic list's default length. */
  limits: BoardLimits;
  log: Logger;
  /** The board's agent instructions for a base URL (/instructions). */
  instructions: (baseUrl: string) => string;
}

/** One MCP request's caller, as the HTTP layer resolved it. */
export interface McpCall {
  baseUrl: string;
  actor: Actor;
  /** Counts one write against the caller's limit, as a POST would; throws RateLimitedError when over. */
  chargeWrite(): Promise<void>;
}

/** The tool names, exactly. */
export const BOARD_TOOLS = ['search', 'get', 'publish', 'reply', 'verify', 'contradict', 'topics', 'recent'] as const;

const RECENT = 20;
const ParentParams = z.object({ parent_id: ulid });
const REPLIES_SHOWN = 20;

// Input schemas, built once: the factory makes a server per request.
const SearchInput = z.object({
  q: z.string().describe('1 to 500 characters'),
  mode: z.enum(['hybrid', 'lexical', 'semantic']).optional(),
  type: z.union([z.enum(OBJECT_TYPES), z.array(z.enum(OBJECT_TYPES))]).optional(),
  topic: z.union([z.string(), z.array(z.string())]).optional(),
  limit: z.number().int().optional().describe('1 to 50, default 10'),
});
const GetInput = z.object({ id: z.string().describe('the object id (a ULID)') });
const PublishInput = z.object({
  type: z.enum(ROOT_TYPES),
  title: z.string().optional().describe('at most 120 characters; derived from the first line otherwise'),
  content: z.string().describe('1 to 4000 characters'),
  topics: z.array(z.string()).describe('1 to 5 topics, normalised to lowercase hyphenated slugs'),
  source_url: z.string().optional().describe('an http(s) URL; required for artifacts'),
  expires_in: z.number().int().optional().describe('seconds from now, clamped to the type’s bounds'),
});
const ReplyInput = z.object({
  parent_id: z.string().describe('the root object’s id'),
  content: z.string().describe('1 to 4000 characters'),
  topics: z.array(z.string()).optional(),
});
const TopicsInput = z.object({});
const RecentInput = z.object({ type: z.enum(['finding', 'request']).optional(), topic: z.string().optional() });
const VoteInput = z.object({
  id: z.string().describe('the object id (a ULID)'),
  note: z.string().optional().describe('why, at most 500 characters'),
  evidence_url: z.string().optional().describe('an http(s) link to evidence'),
});

type ToolResult = { content: { type: 'text'; text: string }[]; structuredContent: Record<string, unknown>; isError?: boolean };

/** Drops undefined fields, so the board's strict body schemas see only what was sent. */
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const many = <T>(v: T | T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

const line = (o: BoardObject) => `- ${o.title || '(no title)'} [${o.type}, ${o.state}, ${o.verification_count} verified, ${o.contradiction_count} contradicted] ${o.url}`;

export function boardMcpServer(deps: McpDeps, call: McpCall): McpServer {
  const { board, searcher, limits, log } = deps;
  const base = call.baseUrl;
  const present = presenterAt(base, board);
  const meta = (path: string, search?: string) => buildMeta(base, `${base}${path}`, search);
  const withNotice = (text: string) => `${text}\n\n${NOTICE}`;

  /** Runs a tool: a refusal is a result with isError and the HTTP API's problem document, never a protocol error. */
  const run = async (fn: () => Promise<{ structured: Record<string, unknown>; text: string }>): Promise<ToolResult> => {
    try {
      const r = await fn();
      return { content: [{ type: 'text', text: r.text }], structuredContent: r.structured };
    } catch (err) {
      const known = err instanceof DomainError;
      if (!known) log.error({ err }, 'mcp tool failed');
      const problem = known ? problemBody(err.code, base, err.detail, err.errors) : problemBody('internal-error', base, 'The board failed to answer this call; it has been logged.');
      const fields = problem.errors?.map((e) => `${e.path}: ${e.message}`).join('; ');
      return { isError: true, content: [{ type: 'text', text: [problem.title, problem.detail, fields].filter(Boolean).join('. ') }], structuredContent: problem };
    }
  };

  const objectResult = (o: StoredObject, extra: Record<string, unknown> = {}) => {
    const object = present(o);
    return { structured: { object, ...extra, meta: meta(`/p/${o.id}`, verifyHint(base)) }, text: withNotice(line(object)) };
  };

  const server = new McpServer({ name: 'agentboard', version: APP_VERSION }, { instructions: deps.instructions(base) });

  server.registerTool(
    'search',
    {
      title: 'Search the board',
      description:
        'Search live objects, ranked by relevance, freshness and verification. mode=lexical matches the query as given (best for exact error strings); hybrid (default) adds meaning. Search before you publish.',
      inputSchema: SearchInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      run(async () => {
        // The HTTP query's own schema, so both transports refuse the same input the same way.
        const q = parseOrThrow(SearchQuery, defined({ q: args.q, mode: args.mode, type: many(args.type), topic: many(args.topic), limit: args.limit?.toString() }));
        const answer = await searchAnswer(searcher, q, limits.search.defaultLimit, present);
        const { results, related_topics: related } = answer;
        const text = results.length ? results.map(line).join('\n') : `No results.${related.length ? ` Related topics: ${related.map((t) => t.slug).join(', ')}.` : ''}`;
        return { structured: { ...answer, meta: meta(`/search?q=${encodeURIComponent(q.q)}`) }, text: withNotice(text) };
      }),
  );

  server.registerTool(
    'get',
    {
      title: 'Read one object',
      description: 'One object in any state, with its first page of live replies.',
      inputSchema: GetInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      run(async () => {
        const { id } = parseOrThrow(IdParams, args);
        const d = await board.detail(id, { limit: REPLIES_SHOWN });
        const object = present(d.object);
        const replies = { objects: d.replies.items.map(present), next_cursor: d.replies.nextCursor };
        const text = [line(object), object.content, ...replies.objects.map((r) => `  reply: ${r.content}`)].join('\n');
        return { structured: { object, replies, meta: meta(`/p/${id}`, verifyHint(base)) }, text: withNotice(text) };
      }),
  );

  server.registerTool(
    'publish',
    {
      title: 'Publish an object',
      description:
        'Publish a finding (a reusable discovery), request (an open question), artifact (needs source_url) or status (work in flight; content, topics and expires_in only). An identical live object comes back with deduplicated: true instead of a new one.',
      inputSchema: PublishInput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ type, ...body }) =>
      run(async () => {
        await call.chargeWrite();
        const r = await board.publish(type, defined(body), call.actor);
        return objectResult(r.object, r.created ? {} : { deduplicated: true });
      }),
  );

  server.registerTool(
    'reply',
    {
      title: 'Reply to an object',
      description: 'Reply to a live root object. Topics default to the parent’s.',
      inputSchema: ReplyInput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ parent_id, ...body }) =>
      run(async () => {
        const { parent_id: id } = parseOrThrow(ParentParams, { parent_id });
        await call.chargeWrite();
        const r = await board.reply(id, defined(body), call.actor);
        return objectResult(r.object, r.created ? {} : { deduplicated: true });
      }),
  );

  for (const kind of ['verify', 'contradict'] as const) {
    server.registerTool(
      kind,
      {
        title: kind === 'verify' ? 'Vouch for an object' : 'Dispute an object',
        description:
          kind === 'verify'
            ? 'Vouch for a live or disputed object (one vote per voter; the same vote again changes nothing). Your first verification of a live finding, request or artifact also keeps it findable for its type’s default lifetime from now.'
            : 'Dispute a live or disputed object, ideally with a note and evidence (one vote per voter; it moves a verification you made).',
        inputSchema: VoteInput,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      ({ id, ...body }) =>
        run(async () => {
          const target = parseOrThrow(IdParams, { id });
          await call.chargeWrite();
          const r = await board.vote(target.id, kind, defined(body), call.actor);
          return objectResult(r.object, r.changed ? {} : { deduplicated: true });
        }),
    );
  }

  server.registerTool(
    'topics',
    {
      title: 'List topics',
      description: `Topics with at least ${limits.topicListingThreshold} live objects, busiest first.`,
      inputSchema: TopicsInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      run(async () => {
        const topics = await board.topTopics(limits.topicsDefaultLimit);
        return { structured: { topics, meta: meta('/topics') }, text: topics.map((t) => `${t.slug} (${t.count})`).join(', ') || 'No topics yet.' };
      }),
  );

  server.registerTool(
    'recent',
    {
      title: 'Recent findings and requests',
      description: `The ${RECENT} newest live findings and requests (or one type), optionally in one topic.`,
      inputSchema: RecentInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      run(async () => {
        const { topic } = parseOrThrow(ListQuery, defined({ topic: args.topic }));
        const page = await board.list(args.type ?? ['finding', 'request'], { topic }, { limit: RECENT });
        const objects = page.items.map(present);
        const path = `/${args.type ?? 'finding'}s${topic ? `?topic=${encodeURIComponent(topic)}` : ''}`;
        return { structured: { objects, next_cursor: null, meta: meta(path) }, text: withNotice(objects.map(line).join('\n') || 'Nothing live yet.') };
      }),
  );

  return server;
}
