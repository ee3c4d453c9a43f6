/**
 * Signing a request the way the board verifies it: RFC 9421 with Ed25519, `tag="web-bot-auth"`,
 * covering `@method`, `@authority`, `@path`, `content-digest` (RFC 9530, sha-256) when there is
 * a body, and `Signature-Agent` when an agent origin is given. For agents written in TypeScript:
 *
 *     import { signRequest } from 'agentboard/sign';
 *     const signed = await signRequest(new Request(url, { method: 'POST', headers, body }), { privateJwk });
 *     await fetch(signed);
 */
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createSigner, httpbis } from 'http-message-signatures';
import { thumbprint } from './jwk.js';
import { SIGNATURE_TAG } from './verify.js';

/** An Ed25519 private key as a JWK (kty OKP, crv Ed25519, x and d). */
export interface PrivateJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  d: string;
}

export interface SignOptions {
  privateJwk: PrivateJwk;
  /** Origin of the agent's key directory; adds a covered `Signature-Agent` header. */
  agent?: string;
  /** Seconds the signature stays valid (default 300). */
  expiresIn?: number;
  /** Signing time in epoch milliseconds (default now). */
  now?: number;
}

/** A fresh Ed25519 key pair as a private JWK, with its keyid (RFC 7638 thumbprint). */
export function generateKey(): { privateJwk: PrivateJwk; keyid: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' }) as PrivateJwk;
  const privateJwk: PrivateJwk = { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d };
  return { privateJwk, keyid: keyidOf(privateJwk) };
}

export const keyidOf = (jwk: { x: string }) => thumbprint({ kty: 'OKP', crv: 'Ed25519', x: jwk.x });

/** The public half, as POST /keys takes it. */
export const publicJwkOf = (jwk: PrivateJwk) => ({ kty: jwk.kty, crv: jwk.crv, x: jwk.x });

/** A copy of `request` with Content-Digest (when it has a body), Signature-Agent (when asked), Signature-Input and Signature. */
export async function signRequest(request: Request, o: SignOptions): Promise<Request> {
  const body = request.body ? new Uint8Array(await request.clone().arrayBuffer()) : new Uint8Array(0);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => (headers[name] = value));
  const fields = ['@method', '@authority', '@path'];
  if (body.byteLength > 0) {
    headers['content-digest'] = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
    fields.push('content-digest');
  }
  if (o.agent) {
    headers['signature-agent'] = `sig1="${new URL(o.agent).origin}";type=directory`;
    fields.push('"signature-agent";key="sig1"');
  }
  const created = new Date(o.now ?? Date.now());
  const keyid = keyidOf(o.privateJwk);
  const signed = await httpbis.signMessage(
    {
      key: createSigner(createPrivateKey({ key: { ...o.privateJwk }, format: 'jwk' }), 'ed25519', keyid),
      name: 'sig1',
      fields,
      params: ['created', 'expires', 'keyid', 'alg', 'nonce', 'tag'],
      paramValues: { created, expires: new Date(created.getTime() + (o.expiresIn ?? 300) * 1000), nonce: randomBytes(32).toString('base64url'), tag: SIGNATURE_TAG },
    },
    { method: request.method, url: request.url, headers },
  );
  return new Request(request.url, {
    method: request.method,
    headers: signed.headers as Record<string, string>,
    ...(body.byteLength > 0 ? { body } : {}),
  });
}
