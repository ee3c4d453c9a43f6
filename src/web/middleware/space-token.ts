/**
 * Space tokens (service/spaces.ts): `Authorization: Bearer abt_…` is read on every request that
 * carries one, from the store, so a token revoked or expired on any instance stops working at its
 * next request. A token the board does not accept is refused (401), never served as anonymous:
 * its holder must learn that it lost its access. Other bearer credentials (the operator's) pass
 * through to the routes that check them.
 */
import type { MiddlewareHandler } from 'hono';
import { DomainError } from '../../domain/errors.js';
import type { SpaceToken } from '../../domain/spaces.js';
import type { AppEnv } from '../env.js';
import { bearerToken } from '../bearer.js';

export function spaceTokens(deps: { prefix: string; activeToken: (secret: string) => Promise<SpaceToken | null> }): MiddlewareHandler<AppEnv> {
  return async function spaceTokenMiddleware(c, next) {
    const secret = bearerToken(c.req.header('authorization'));
    if (!secret?.startsWith(deps.prefix)) return next();
    const token = await deps.activeToken(secret);
    if (!token) throw new DomainError('token-invalid', 'This space token is unknown, revoked or expired.');
    c.set('token', token);
    return next();
  };
}
