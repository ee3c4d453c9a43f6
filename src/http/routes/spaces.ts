/**
 * Spaces: create one, list your own, manage members and tokens (service/spaces.ts). Callers are
 * signed keys, or space tokens where a route says so. To anyone outside a space, its routes
 * answer 404 as for a space that does not exist.
 */
import type { ApiDeps } from '../settings.js';
import type { Space, SpaceMember, SpaceRole, SpaceToken } from '../../service/spaces.js';
import { tokenActive } from '../../domain/spaces.js';
import { iso } from '../../service/present.js';
import {
  CreatedTokenEnvelope,
  CreateSpaceBody,
  CreateTokenBody,
  MemberBody,
  MemberEnvelope,
  MemberListEnvelope,
  MemberParams,
  SpaceEnvelope,
  SpaceListEnvelope,
  SpaceParams,
  TokenListEnvelope,
  TokenParams,
} from '../../schemas/spaces.js';
import type { Router } from '../../web/router.js';
import { actorOf, jsonBody, meta, parseParams } from '../../web/request.js';
import { jsonContent, problemResponses } from '../../web/openapi.js';
import { json, respond } from '../../web/response-headers.js';

const presentSpace = (s: Space & { role: SpaceRole }) => ({ slug: s.slug, name: s.name, created_at: iso(s.createdAt), role: s.role });
const presentMember = (m: SpaceMember) => ({ keyid: m.keyid, role: m.role, added_at: iso(m.addedAt) });
const when = (t: number | null) => (t === null ? null : iso(t));
const presentToken = (t: SpaceToken, now: number) => ({
  id: t.id,
  name: t.name,
  role: t.role,
  created_at: iso(t.createdAt),
  expires_at: when(t.expiresAt),
  revoked_at: when(t.revokedAt),
  active: tokenActive(t, now),
});
const body = (schema: object) => ({ body: { required: true, content: { 'application/json': { schema } } } });

export function registerSpaceRoutes(router: Router, s: ApiDeps): void {
  router.route(
    {
      method: 'post',
      path: '/spaces',
      summary: 'Create a space (signed): the signer becomes its admin',
      tags: ['spaces'],
      request: body(CreateSpaceBody),
      responses: { 201: jsonContent(SpaceEnvelope, 'Created'), ...problemResponses(400, 401, 403, 409, 413, 415, 429) },
    },
    async (c) => {
      const space = await s.spaces.create(actorOf(c, s), await jsonBody(c, s));
      return json(c, { space: presentSpace(space), meta: meta(c) }, 201);
    },
  );
  router.route(
    {
      method: 'get',
      path: '/spaces',
      summary: "The spaces the caller belongs to, with the caller's role (signed, or a space token: its own space)",
      tags: ['spaces'],
      responses: { 200: jsonContent(SpaceListEnvelope, 'Your spaces'), ...problemResponses(401, 429) },
    },
    async (c) => json(c, { spaces: (await s.spaces.mine(actorOf(c, s))).map(presentSpace), meta: meta(c) }),
  );
  registerMemberRoutes(router, s);
  registerTokenRoutes(router, s);
  router.registry.registerComponent('securitySchemes', 'spaceToken', { type: 'http', scheme: 'bearer', description: 'a space token (abt_…), created by an admin of the space' });
}

function registerMemberRoutes(router: Router, s: ApiDeps): void {
  router.route(
    {
      method: 'get',
      path: '/spaces/{slug}/members',
      summary: "A space's members (its admins)",
      tags: ['spaces'],
      request: { params: SpaceParams },
      responses: { 200: jsonContent(MemberListEnvelope, 'The members'), ...problemResponses(400, 401, 403, 404, 429) },
    },
    async (c) => {
      const { slug } = parseParams(c, SpaceParams);
      return json(c, { members: (await s.spaces.members(actorOf(c, s), slug)).map(presentMember), meta: meta(c) });
    },
  );
  router.route(
    {
      method: 'put',
      path: '/spaces/{slug}/members/{keyid}',
      summary: "Add a key to a space, or change its role (the space's admins)",
      tags: ['spaces'],
      request: { params: MemberParams, ...body(MemberBody) },
      responses: { 200: jsonContent(MemberEnvelope, 'The member'), ...problemResponses(400, 401, 403, 404, 409, 413, 415, 429) },
    },
    async (c) => {
      const { slug, keyid } = parseParams(c, MemberParams);
      const member = await s.spaces.setMember(actorOf(c, s), slug, keyid, await jsonBody(c, s));
      return json(c, { member: presentMember(member), meta: meta(c) });
    },
  );
  router.route(
    {
      method: 'delete',
      path: '/spaces/{slug}/members/{keyid}',
      summary: 'Remove a member (its admins; any member may remove itself). The last admin cannot leave',
      tags: ['spaces'],
      request: { params: MemberParams },
      responses: { 204: { description: 'Removed' }, ...problemResponses(400, 401, 403, 404, 409, 429) },
    },
    async (c) => {
      const { slug, keyid } = parseParams(c, MemberParams);
      await s.spaces.removeMember(actorOf(c, s), slug, keyid);
      return respond(c, null, 204, {});
    },
  );
}

function registerTokenRoutes(router: Router, s: ApiDeps): void {
  router.route(
    {
      method: 'post',
      path: '/spaces/{slug}/tokens',
      summary: "Create a token for clients that cannot sign (the space's admins); its secret is shown once",
      tags: ['spaces'],
      request: { params: SpaceParams, ...body(CreateTokenBody) },
      responses: { 201: jsonContent(CreatedTokenEnvelope, 'Created: keep the token, it is not shown again'), ...problemResponses(400, 401, 403, 404, 413, 415, 429) },
    },
    async (c) => {
      const { slug } = parseParams(c, SpaceParams);
      const { token, secret } = await s.spaces.createToken(actorOf(c, s), slug, await jsonBody(c, s));
      const { revoked_at: _r, active: _a, ...shown } = presentToken(token, s.clock.now());
      return json(c, { ...shown, token: secret, meta: meta(c) }, 201);
    },
  );
  router.route(
    {
      method: 'get',
      path: '/spaces/{slug}/tokens',
      summary: "A space's tokens, without their secrets (the space's admins)",
      tags: ['spaces'],
      request: { params: SpaceParams },
      responses: { 200: jsonContent(TokenListEnvelope, 'The tokens'), ...problemResponses(400, 401, 403, 404, 429) },
    },
    async (c) => {
      const { slug } = parseParams(c, SpaceParams);
      const now = s.clock.now();
      return json(c, { tokens: (await s.spaces.tokens(actorOf(c, s), slug)).map((t) => presentToken(t, now)), meta: meta(c) });
    },
  );
  router.route(
    {
      method: 'delete',
      path: '/spaces/{slug}/tokens/{id}',
      summary: "Revoke a token (the space's admins): it stops working at its next request, on every instance",
      tags: ['spaces'],
      request: { params: TokenParams },
      responses: { 204: { description: 'Revoked' }, ...problemResponses(400, 401, 403, 404, 429) },
    },
    async (c) => {
      const { slug, id } = parseParams(c, TokenParams);
      await s.spaces.revokeToken(actorOf(c, s), slug, id);
      return respond(c, null, 204, {});
    },
  );
}
