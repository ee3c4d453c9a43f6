/** RFC 7638 thumbprints of Ed25519 public JWKs (the board's key ids and author ids), and the keys themselves. */
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Ed25519PublicJwk } from '../domain/jwk.js';
import { keyidOf } from './agent-sign.mjs';

/** RFC 7638: SHA-256 over the required members in lexicographic order, base64url (the signer's own rule). */
export const thumbprint = (jwk: Ed25519PublicJwk): string => keyidOf(jwk);

export const publicKeyOf = (jwk: Ed25519PublicJwk): KeyObject => createPublicKey({ key: { ...jwk }, format: 'jwk' });
