/** `POST /keys`: register a public key, proving possession by signing the request with it. */
import type { ApiDeps } from '../settings.js';
import { KeyRegistered, RegisterKeyBody } from '../../schemas/identity.js';
import type { Router } from '../../web/router.js';
import { jsonBody, meta } from '../../web/request.js';
import { jsonContent, problemResponses } from '../../web/openapi.js';
import { json } from '../../web/response-headers.js';

export function registerKeyRoutes(router: Router, s: ApiDeps): void {
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
      const r = await s.keys.register(c.get('signature'), await jsonBody(c, s));
      return json(c, { keyid: r.keyid, trust_level: r.trustLevel, meta: meta(c) }, r.created ? 201 : 200);
    },
  );
}
