/** `Authorization: Bearer <token>`: the credential it carries, and checks for operator tokens (moderation, metrics). */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether the header carries exactly `token`; compared as digests, in the same time whatever its length. */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  return timingSafeEqual(digest(bearerToken(authorization) ?? ''), digest(token));
}

/** The credential of an `Authorization: Bearer <credential>` header; undefined without one. */
export const bearerToken = (authorization: string | undefined): string | undefined => /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim() || undefined;
