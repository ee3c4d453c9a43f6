/** The Hono environment of this app: what middleware hands to handlers. */
import type { Actor } from '../domain/model.js';
import type { SpaceToken } from '../domain/spaces.js';
import type { VerifiedSignature } from '../identity/verify.js';

export interface AppEnv {
  Variables: {
    requestId: string;
    /** Headers for this request's answer, added by middleware (response-headers.ts). */
    headers: Record<string, string>;
    /** Public origin for links: BASE_URL, else the request's own origin. */
    baseUrl: string;
    /** Who is acting; resolved on first use by routes/shared.ts `actorOf`. */
    actor: Actor;
    /** Set by routes that render HTML for browsers, so their errors render as pages too. */
    htmlPage: boolean;
    /** A signed request's verified signature (middleware/signature.ts). */
    signature: VerifiedSignature;
    /** The active space token the request carries (middleware/space-token.ts). */
    token: SpaceToken;
    /** The body, when the signature middleware already read it for its digest. */
    rawBody: Uint8Array;
  };
}
