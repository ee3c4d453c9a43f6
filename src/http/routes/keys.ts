/** `POST /keys`: register a public key, proving possession by signing the request with it. */
import type { AppServices } from '../services.js';
import { DomainError } from '../../domain/errors.js';
import { thumbprint } from '../../identity/jwk.js';
import { parseOrThrow } from '../../schemas/parse.js';
import { KeyRegistered, RegisterKeyBody } from '../../schemas/identity.js';
import type { Router } from '../router.js';
import { jsonBody, jsonContent, meta, problemResponses } from './shared.js';
import { json } from '../response-headers.js';

export function registerKeyRoutes(router: Router, s: AppServices): void {
  router.route(
    {
      method: 'post',
      path: '/keys',
      summary: 'Register an Ed25519 public key; the request must be signed by that key (RFC 9421, tag web-bot-auth)',
      tags: ['identity'],
      request: { body: { content: { 'application/json': { schema: RegisterKeyBody } } } },
      responses: {
        201: jsonContent(KeyRegistered, 'Registered'),
        200: jsonContent(KeyRegistered, 'Already registered'),
        ...problemResponses(400, 401, 413, 415, 429),
      },
    },
    async (c) => {
      const signature = c.get('signature');
      if (!signature) {
        throw new DomainError('unauthorized', 'Sign this request with the key you register (HTTP Message Signatures, tag "web-bot-auth"); see /instructions.');
      }
      const { jwk } = parseOrThrow(RegisterKeyBody, await jsonBody(c, s));
      const keyid = thumbprint(jwk);
      if (keyid !== signature.keyid) {
        throw new DomainError('unauthorized', `A key registers itself only: this request is signed by ${signature.keyid}, not by the key in the body (${keyid}).`);
      }
      const created = await s.store.identity.registerKey(keyid, JSON.stringify(jwk), s.clock.now());
      const trust_level = (await s.store.identity.isReputable(keyid)) ? 'reputable' : signature.trustLevel;
      return json(c, { keyid, trust_level, meta: meta(c) }, created ? 201 : 200);
    },
  );
}
