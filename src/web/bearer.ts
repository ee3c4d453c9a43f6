/** `Authorization: Bearer <token>` checks for operator tokens (moderation, metrics). */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether the header carries exactly `token`; compared as digests, in the same time whatever its length. */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim() ?? '';
  return timingSafeEqual(digest(given), digest(token));
}
