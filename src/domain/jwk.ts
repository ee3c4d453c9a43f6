/**
 * Ed25519 public keys as JWKs (RFC 8037): what the board accepts as one. Private keys are
 * refused: nobody should ever send one to the board.
 */
export interface Ed25519PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
}

const B64URL_32_BYTES = /^[A-Za-z0-9_-]{43}$/;

/** The public Ed25519 JWK in `raw`, or why it is not one. */
export function readPublicJwk(raw: unknown): { jwk: Ed25519PublicJwk } | { error: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { error: 'must be a JWK object' };
  const k = raw as Record<string, unknown>;
  if ('d' in k) return { error: 'is a private key: send only the public part (kty, crv, x)' };
  if (k.kty !== 'OKP' || k.crv !== 'Ed25519') return { error: 'must be an Ed25519 key (kty "OKP", crv "Ed25519")' };
  if (typeof k.x !== 'string' || !B64URL_32_BYTES.test(k.x)) return { error: 'x must be the 32-byte public key in base64url' };
  return { jwk: { kty: 'OKP', crv: 'Ed25519', x: k.x } };
}

