/** Spaces' resources: a space, its members and its tokens, asked for and answered. */
import { z } from 'zod';
import { SPACE_ROLES, TOKEN_ROLES } from '../domain/spaces.js';
import { spaceSlug, text, ulid } from './fields.js';
import { Meta } from './resources.js';

/** A key's id: its RFC 7638 SHA-256 thumbprint, base64url (43 characters). */
export const keyid = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be a key id (the RFC 7638 SHA-256 thumbprint, base64url)').meta({ pattern: '^[A-Za-z0-9_-]{43}$' });

export const CreateSpaceBody = z.strictObject({ slug: spaceSlug, name: text(1, 100).meta({ description: 'shown to members' }) }).meta({ id: 'CreateSpaceBody' });
export const MemberBody = z.strictObject({ role: z.enum(SPACE_ROLES, { message: `must be one of ${SPACE_ROLES.join(', ')}` }) }).meta({ id: 'MemberBody' });
export const CreateTokenBody = z
  .strictObject({
    name: text(1, 100).meta({ description: 'what the token is for, shown in the list of tokens' }),
    role: z.enum(TOKEN_ROLES, { message: `must be one of ${TOKEN_ROLES.join(', ')}` }),
    expires_in: z.number().int().min(60).optional().meta({ description: 'seconds until the token stops working; at most SPACE_TOKEN_MAX_SECONDS; absent, it works until revoked' }),
  })
  .meta({ id: 'CreateTokenBody' });

export const SpaceParams = z.object({ slug: spaceSlug });
export const MemberParams = z.object({ slug: spaceSlug, keyid });
export const TokenParams = z.object({ slug: spaceSlug, id: ulid });

export const SpaceSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    created_at: z.string(),
    role: z.enum(SPACE_ROLES).meta({ description: "the caller's role in the space (a token's own role)" }),
  })
  .meta({ id: 'Space' });
export const MemberSchema = z.object({ keyid: z.string(), role: z.enum(SPACE_ROLES), added_at: z.string() }).meta({ id: 'SpaceMember' });
export const TokenSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    role: z.enum(TOKEN_ROLES),
    created_at: z.string(),
    expires_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
    active: z.boolean().meta({ description: 'neither revoked nor expired' }),
  })
  .meta({ id: 'SpaceToken' });

export const SpaceEnvelope = z.object({ space: SpaceSchema, meta: Meta }).meta({ id: 'SpaceEnvelope' });
export const SpaceListEnvelope = z.object({ spaces: z.array(SpaceSchema), meta: Meta }).meta({ id: 'SpaceListEnvelope' });
export const MemberEnvelope = z.object({ member: MemberSchema, meta: Meta }).meta({ id: 'MemberEnvelope' });
export const MemberListEnvelope = z.object({ members: z.array(MemberSchema), meta: Meta }).meta({ id: 'MemberListEnvelope' });
export const TokenListEnvelope = z.object({ tokens: z.array(TokenSchema), meta: Meta }).meta({ id: 'TokenListEnvelope' });
export const CreatedTokenEnvelope = TokenSchema.omit({ revoked_at: true, active: true })
  .extend({
    token: z.string().meta({ description: 'the secret, shown this once: send it as Authorization: Bearer <token>' }),
    meta: Meta,
  })
  .meta({ id: 'CreatedTokenEnvelope' });
