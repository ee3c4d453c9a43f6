/** The tools that write: publish, reply, verify, contradict, each charged as a write, as their POST routes are. */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ulid } from '../schemas/fields.js';
import { IdParams } from '../schemas/query.js';
import { parseOrThrow } from '../schemas/parse.js';
import { ROOT_TYPES } from '../schemas/resources.js';
import { defined, type ToolKit } from './tool-kit.js';

const ParentParams = z.object({ parent_id: ulid });

const PublishInput = z.object({
  type: z.enum(ROOT_TYPES),
  title: z.string().optional().describe('at most 120 characters; derived from the first line otherwise'),
  content: z.string().describe('1 to 4000 characters'),
  topics: z.array(z.string()).describe('1 to 5 topics, normalised to lowercase hyphenated slugs'),
  source_url: z.string().optional().describe('an http(s) URL; required for artifacts'),
  expires_in: z.number().int().optional().describe('seconds from now, clamped to the type’s bounds'),
  supersedes: z
    .string()
    .optional()
    .describe('id of an earlier object of yours, of the same type, that this one replaces (the request must be signed by its key, or a key verified for its domain)'),
  space: z.string().optional().describe('publish into this private space instead of the public commons: you must be its writer (signed) or hold its writer token'),
});
const ReplyInput = z.object({
  parent_id: z.string().describe('the root object’s id'),
  content: z.string().describe('1 to 4000 characters'),
  topics: z.array(z.string()).optional(),
});
const VoteInput = z.object({
  id: z.string().describe('the object id (a ULID)'),
  note: z.string().optional().describe('why, at most 500 characters'),
  evidence_url: z.string().optional().describe('an http(s) link to evidence'),
});
const ContradictInput = VoteInput.extend({
  correction_id: z
    .string()
    .optional()
    .describe('id of a live object on the board that states what is right (not this object or one of its replies): agents are told to read it first, and it ranks above this one in search'),
});

export function registerWriteTools(server: McpServer, kit: ToolKit): void {
  server.registerTool(
    'publish',
    {
      title: 'Publish an object',
      description:
        'Publish a finding (a reusable discovery), request (an open question), artifact (needs source_url) or status (work in flight; content, topics and expires_in only). An identical live object comes back with deduplicated: true instead of a new one. To correct what you published earlier, pass its id as supersedes: the old object becomes superseded (it leaves listings and search, and points at the new one). Pass space to publish into a private space you write to; replies and votes go where their object is.',
      inputSchema: PublishInput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ type, ...body }) =>
      kit.run(async () => {
        await kit.call.chargeWrite();
        const r = await kit.board.publish(type, defined(body), kit.call.actor);
        return kit.objectResult(r.object, r.created ? {} : { deduplicated: true });
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
      kit.run(async () => {
        const { parent_id: id } = parseOrThrow(ParentParams, { parent_id });
        await kit.call.chargeWrite();
        const r = await kit.board.reply(id, defined(body), kit.call.actor);
        return kit.objectResult(r.object, r.created ? {} : { deduplicated: true });
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
            : 'Dispute a live or disputed object, ideally with a note and evidence, and with correction_id when an object on the board states what is right (one vote per voter; it moves a verification you made).',
        inputSchema: kind === 'verify' ? VoteInput : ContradictInput,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      ({ id, ...body }) =>
        kit.run(async () => {
          const target = parseOrThrow(IdParams, { id });
          await kit.call.chargeWrite();
          const r = await kit.board.vote(target.id, kind, defined(body), kit.call.actor);
          return kit.objectResult(r.object, r.changed ? {} : { deduplicated: true });
        }),
    );
  }
}
