/** Publishing, listing, reading, replying to and voting on objects (docs/decisions.md: Votes, Lifetimes and states). */
import type { ApiDeps } from '../settings.js';
import type { RootType } from '../../domain/model.js';
import type { VoteKind } from '../../domain/model.js';
import {
  CreateObjectBody,
  CreateReplyBody,
  CreateStatusBody,
  ObjectDetailEnvelope,
  ObjectEnvelope,
  ObjectListEnvelope,
  VoteBody,
  VoteListEnvelope,
} from '../../schemas/resources.js';
import { IdParams, ListQuery, PageQuery, VotesQuery } from '../../schemas/query.js';
import { presentVote } from '../../service/present.js';
import { verifyHint } from '../../service/meta.js';
import type { Router } from '../../web/router.js';
import { actorOf, cachedJson, jsonBody, meta, parseParams, parseQuery, presenter, type Ctx } from '../../web/request.js';
import { htmlOrJson, jsonContent, problemResponses } from '../../web/openapi.js';
import { json } from '../../web/response-headers.js';

const DEFAULT_PAGE = 20;

const PUBLISH: { path: string; type: RootType; body: typeof CreateObjectBody | typeof CreateStatusBody; summary: string }[] = [
  { path: '/findings', type: 'finding', body: CreateObjectBody, summary: 'Publish a finding (a reusable discovery)' },
  { path: '/requests', type: 'request', body: CreateObjectBody, summary: 'Publish a request (an open question)' },
  { path: '/artifacts', type: 'artifact', body: CreateObjectBody, summary: 'Publish an artifact (needs source_url)' },
  { path: '/status', type: 'status', body: CreateStatusBody, summary: 'Publish a short-lived status note' },
];

export function registerObjectRoutes(router: Router, s: ApiDeps): void {
  const { board } = s;

  /** 201 with Location for a new object, 200 with `deduplicated: true` for an identical live one. */
  const published = (c: Ctx, r: { object: Parameters<ReturnType<typeof presenter>>[0]; created: boolean }) => {
    const object = presenter(c, s)(r.object);
    const body = { object, ...(r.created ? {} : { deduplicated: true }), meta: meta(c, verifyHint(c.get('baseUrl'))) };
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
        responses: { 200: htmlOrJson(ObjectListEnvelope, 'A page of live objects'), ...problemResponses(400, 429) },
      },
      async (c) => {
        const q = parseQuery(c, ListQuery);
        return cachedJson(c, s, async () => {
          const page = await board.list(type, { topic: q.topic }, { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE });
          return { body: { objects: page.items.map(presenter(c, s)), next_cursor: page.nextCursor, meta: meta(c) }, shown: page.items };
        });
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
        const d = await board.detail(id, { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE });
        const present = presenter(c, s);
        const replies = { objects: d.replies.items.map(present), next_cursor: d.replies.nextCursor };
        return { body: { object: present(d.object), replies, meta: meta(c, verifyHint(c.get('baseUrl'))) }, shown: [d.object, ...d.replies.items] };
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
        const page = await board.replies(id, { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE });
        return { body: { objects: page.items.map(presenter(c, s)), next_cursor: page.nextCursor, meta: meta(c) }, shown: page.items };
      });
    },
  );

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

  for (const kind of ['verify', 'contradict'] as const satisfies readonly VoteKind[]) {
    router.route(
      {
        method: 'post',
        path: `/p/{id}/${kind}`,
        summary: kind === 'verify' ? 'Vouch for an object (one vote per voter)' : 'Dispute an object (one vote per voter)',
        description:
          'One vote per voter and object: the signed author, else a keyed hash of the client address. The same vote again answers 200 with deduplicated: true; the other kind moves the vote.',
        tags: ['votes'],
        request: { params: IdParams, body: { required: false, content: { 'application/json': { schema: VoteBody } } } },
        responses: { 200: jsonContent(ObjectEnvelope, 'The object with its new counts'), ...problemResponses(400, 403, 404, 413, 415, 429) },
      },
      async (c) => {
        const { id } = parseParams(c, IdParams);
        const body = await jsonBody(c, s, { optional: true });
        const r = await board.vote(id, kind, body, actorOf(c, s));
        return json(c, { object: presenter(c, s)(r.object), ...(r.changed ? {} : { deduplicated: true }), meta: meta(c, verifyHint(c.get('baseUrl'))) });
      },
    );
  }

  router.route(
    {
      method: 'get',
      path: '/p/{id}/votes',
      summary: "An object's verifications and contradictions with their notes and evidence, most recent first (none for hidden or withdrawn objects)",
      tags: ['objects'],
      request: { params: IdParams, query: VotesQuery },
      responses: { 200: jsonContent(VoteListEnvelope, 'A page of votes'), ...problemResponses(400, 404, 429) },
    },
    async (c) => {
      const { id } = parseParams(c, IdParams);
      const q = parseQuery(c, VotesQuery);
      const page = await board.votes(id, { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE });
      return json(c, { object_id: id, votes: page.items.map(presentVote), next_cursor: page.nextCursor, meta: meta(c) });
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
}
