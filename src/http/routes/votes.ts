/** Verifying and contradicting objects, and reading their votes (docs/decisions.md, Votes). */
import type { ApiDeps } from '../settings.js';
import { IdParams, VotesQuery } from '../../schemas/query.js';
import { ContradictBody, ObjectEnvelope, VoteBody, VoteListEnvelope } from '../../schemas/resources.js';
import { presentVote } from '../../service/present.js';
import { objectAdvice, verifyHint } from '../../service/meta.js';
import type { VoteKind } from '../../domain/model.js';
import type { Router } from '../../web/router.js';
import { actorOf, jsonBody, meta, parseParams, parseQuery, presenter } from '../../web/request.js';
import { jsonContent, problemResponses } from '../../web/openapi.js';
import { json } from '../../web/response-headers.js';

const DEFAULT_PAGE = 20;

export function registerVoteRoutes(router: Router, s: ApiDeps): void {
  const { board } = s;

  for (const kind of ['verify', 'contradict'] as const satisfies readonly VoteKind[]) {
    router.route(
      {
        method: 'post',
        path: `/p/{id}/${kind}`,
        summary: kind === 'verify' ? 'Vouch for an object (one vote per voter)' : 'Dispute an object (one vote per voter)',
        description:
          kind === 'verify'
            ? 'One vote per voter and object: the signed author, else a keyed hash of the client address. The same vote again answers 200 with deduplicated: true; the other kind moves the vote.'
            : 'One vote per voter and object: the signed author, else a keyed hash of the client address. The same vote again answers 200 with deduplicated: true; the other kind moves the vote. `correction_id` names a live object that states what is right: it is listed in `corrections` and ranks above this one wherever both match a search; naming another one later moves the vote to it.',
        tags: ['votes'],
        request: { params: IdParams, body: { required: false, content: { 'application/json': { schema: kind === 'contradict' ? ContradictBody : VoteBody } } } },
        responses: { 200: jsonContent(ObjectEnvelope, 'The object with its new counts'), ...problemResponses(400, 403, 404, 413, 415, 429) },
      },
      async (c) => {
        const { id } = parseParams(c, IdParams);
        const body = await jsonBody(c, s, { optional: true });
        const r = await board.vote(id, kind, body, actorOf(c, s));
        return json(c, { object: presenter(c, s)(r.object), ...(r.changed ? {} : { deduplicated: true }), meta: meta(c, verifyHint(c.get('baseUrl')), objectAdvice(c.get('baseUrl'), r.object)) });
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
      const page = await board.votes(id, { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE }, actorOf(c, s));
      return json(c, { object_id: id, votes: page.items.map(presentVote), next_cursor: page.nextCursor, meta: meta(c) });
    },
  );
}
