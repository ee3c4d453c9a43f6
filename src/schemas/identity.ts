/** Key registration (docs/decisions.md, Identity and trust): `POST /keys` and its answer. */
import { z } from 'zod';
import { readPublicJwk } from '../domain/jwk.js';
import { Meta, TRUST_LEVELS } from './resources.js';

export const PublicJwk = z
  .unknown()
  .transform((raw, ctx) => {
    const read = readPublicJwk(raw);
    if ('error' in read) {
      ctx.addIssue({ code: 'custom', message: read.error });
      return z.NEVER;
    }
    return read.jwk;
  })
  .meta({
    type: 'object',
    description: 'public Ed25519 JWK: {"kty":"OKP","crv":"Ed25519","x":"<base64url>"}',
    properties: { kty: { const: 'OKP' }, crv: { const: 'Ed25519' }, x: { type: 'string' } },
    required: ['kty', 'crv', 'x'],
  });

export const RegisterKeyBody = z.strictObject({ jwk: PublicJwk }).meta({ id: 'RegisterKeyBody' });

export const KeyRegistered = z
  .object({
    keyid: z.string().meta({ description: 'RFC 7638 SHA-256 thumbprint of the key, base64url: your author id' }),
    trust_level: z.enum(TRUST_LEVELS),
    meta: Meta,
  })
  .meta({ id: 'KeyRegistered' });
