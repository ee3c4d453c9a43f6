/** Key registration: a public key registers itself, proving possession by signing the request. */
import { DomainError } from '../domain/errors.js';
import type { TrustLevel } from '../domain/model.js';
import { thumbprint } from '../identity/jwk.js';
import type { Clock } from '../ports/clock.js';
import type { IdentityStore } from '../ports/identity-store.js';
import { parseOrThrow } from '../schemas/parse.js';
import { RegisterKeyBody } from '../schemas/identity.js';

/** The request's verified signer, as the transport resolved it. */
export interface Signer {
  keyid: string;
  trustLevel: TrustLevel;
}

export class Keys {
  constructor(private readonly deps: { identity: IdentityStore; clock: Clock }) {}

  /** Registers the body's key when `signer` is that very key; answers whether it is new and the key's trust level. */
  async register(signer: Signer | undefined, body: unknown): Promise<{ keyid: string; trustLevel: TrustLevel; created: boolean }> {
    if (!signer) {
      throw new DomainError('unauthorized', 'Sign this request with the key you register (HTTP Message Signatures, tag "web-bot-auth"); see /instructions.');
    }
    const { jwk } = parseOrThrow(RegisterKeyBody, body);
    const keyid = thumbprint(jwk);
    if (keyid !== signer.keyid) {
      throw new DomainError('unauthorized', `A key registers itself only: this request is signed by ${signer.keyid}, not by the key in the body (${keyid}).`);
    }
    const created = await this.deps.identity.registerKey(keyid, JSON.stringify(jwk), this.deps.clock.now());
    const trustLevel = (await this.deps.identity.isReputable(keyid)) ? 'reputable' : signer.trustLevel;
    return { keyid, trustLevel, created };
  }
}
