/**
 * Signed requests (docs/decisions.md, Identity and trust): any request carrying `Signature-Input` or
 * `Signature` must verify, or it is refused with a 401 problem saying why — never served as
 * anonymous. A verified request acts as its key's author (and votes as that author).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { DomainError } from '../../domain/errors.js';
import type { Clock } from '../../ports/clock.js';
import { readPublicJwk, type Ed25519PublicJwk } from '../../domain/jwk.js';
import { thumbprint } from '../../identity/jwk.js';
import { DirectoryUnavailable, type KeyDirectory } from '../../identity/key-directory.js';
import { verifySignedRequest, type KeySource, type VerifiedSignature } from '../../identity/verify.js';
import type { Claim, Kv } from '../../ports/kv.js';
import type { IdentityStore } from '../../ports/identity-store.js';
import { readBodyBytes } from '../body.js';
import { nodeIncoming } from '../client.js';
import type { AppEnv } from '../env.js';

export interface SignatureDeps {
  identity: IdentityStore;
  kv: Kv;
  /** Told when the kv fails: a signature with a nonce is then refused (503), never waved through. */
  onKvError: (err: unknown) => void;
  directory: KeyDirectory;
  /** Bills the requester for a key-directory fetch its request causes; throws to refuse. */
  chargeDirectoryFetch: (c: Context<AppEnv>) => Promise<void>;
  clock: Clock;
  /** The signature settings this middleware reads. */
  settings: { skewSeconds: number; maxBodyBytes: number; allowHttpAgents: boolean };
}

/** POST /keys is signed by the key it registers, which is not known yet: the body offers it. */
function offeredKey(path: string, method: string, body: Uint8Array): KeySource['offered'] {
  if (method !== 'POST' || path !== '/keys') return undefined;
  return (keyid) => {
    try {
      const read = readPublicJwk((JSON.parse(new TextDecoder().decode(body)) as { jwk?: unknown }).jwk);
      return 'jwk' in read && thumbprint(read.jwk) === keyid ? read.jwk : null;
    } catch {
      return null;
    }
  };
}

/**
 * A signature with a nonce is good for one request: the nonce is claimed in the kv (atomically,
 * shared by every process) until the signature expires, so a captured request cannot be
 * replayed. Where that cannot be checked the request is refused, never served: the kv does not
 * answer (503), or its memory of claims began after the signature was made (a store that
 * restarted empty has forgotten what was claimed before: docs/decisions.md, Identity and trust).
 */
async function claimNonce(v: VerifiedSignature, deps: SignatureDeps): Promise<void> {
  if (!v.nonce) return;
  const now = deps.clock.now();
  const ttl = Math.max(1000, (v.expires + deps.settings.skewSeconds) * 1000 - now);
  let claim: Claim;
  try {
    claim = await deps.kv.claim(`sig-nonce:${v.keyid}:${v.nonce}`, ttl, now);
  } catch (err) {
    deps.onKvError(err);
    throw new DomainError('unavailable', 'The board cannot check now that this signature was not used before (its shared store does not answer); retry shortly with a freshly signed request.');
  }
  if (!claim.fresh) throw new DomainError('signature-invalid', 'This signature was already used (its nonce was seen before); sign every request anew.');
  // To the second, as signatures are dated: a signature of the second the record began is taken.
  if (v.created < Math.floor(claim.since / 1000)) {
    throw new DomainError('signature-expired', 'This signature was made before the board began its record of used signatures (that record restarted); sign the request again.');
  }
}

export function signatures(deps: SignatureDeps): MiddlewareHandler<AppEnv> {
  const { identity, directory, clock, settings } = deps;
  return async function signatureMiddleware(c, next) {
    // Most requests are unsigned: two lookups, and nothing else, decide that.
    if (!c.req.raw.headers.has('signature') && !c.req.raw.headers.has('signature-input')) return next();
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((value, name) => (headers[name] = value));
    const body = await readBodyBytes(c.req.raw, settings.maxBodyBytes, nodeIncoming(c));
    c.set('rawBody', body);
    const url = new URL(c.req.url);
    const offered = offeredKey(url.pathname, c.req.method, body);
    const keys: KeySource = {
      async registered(keyid) {
        const stored = await identity.getKey(keyid);
        return stored ? (JSON.parse(stored) as Ed25519PublicJwk) : null;
      },
      directory: (origin) => directory.keys(origin, () => deps.chargeDirectoryFetch(c)),
      ...(offered ? { offered } : {}),
    };
    const verified = await verifySignedRequest({ method: c.req.method, url: `${c.get('baseUrl')}${url.pathname}${url.search}`, headers, body }, keys, {
      nowSeconds: Math.floor(clock.now() / 1000),
      skewSeconds: settings.skewSeconds,
      allowHttpAgents: settings.allowHttpAgents,
      directoryError: (err) => (err instanceof DirectoryUnavailable ? new DomainError('key-directory-unavailable', `${err.message}.`) : null),
    });
    await claimNonce(verified, deps);
    c.set('signature', verified);
    c.set('actor', { author: { id: verified.keyid, trustLevel: verified.trustLevel, domain: verified.domain }, voterId: verified.keyid });
    await next();
  };
}
