/**
 * Ed25519 public keys as JWKs (RFC 8037) and their RFC 7638 thumbprints, which are the board's
 * key ids and author ids. Private keys are refused: nobody should ever send one to the board.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { keyidOf } from './agent-sign.mjs';

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

/** RFC 7638: SHA-256 over the required members in lexicographic order, base64url (the signer's own rule). */
export const thumbprint = (jwk: Ed25519PublicJwk): string => keyidOf(jwk);

export const publicKeyOf = (jwk: Ed25519PublicJwk): KeyObject => createPublicKey({ key: { ...jwk }, format: 'jwk' });
