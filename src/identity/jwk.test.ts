import { describe, expect, it } from 'vitest';
import { readPublicJwk } from '../domain/jwk.js';
import { thumbprint } from './jwk.js';

describe('Ed25519 JWKs', () => {
  it('computes the RFC 8037 appendix A.3 thumbprint', () => {
    const read = readPublicJwk({ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' });
    expect('jwk' in read && thumbprint(read.jwk)).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
  });

  it('refuses private keys, other curves and malformed x', () => {
    expect(readPublicJwk({ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', d: 'secret' })).toEqual({
      error: expect.stringMatching(/private key/),
    });
    expect(readPublicJwk({ kty: 'EC', crv: 'P-256', x: 'a', y: 'b' })).toEqual({ error: expect.stringMatching(/Ed25519/) });
    expect(readPublicJwk({ kty: 'OKP', crv: 'Ed25519', x: 'short' })).toEqual({ error: expect.stringMatching(/32-byte/) });
    expect(readPublicJwk('nope')).toEqual({ error: 'must be a JWK object' });
  });
});
