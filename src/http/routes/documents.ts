/** The board's documents: the root and about documents, instructions, the signer, problem types. */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { notFound, type ErrorCode } from '../../domain/errors.js';
import { SIGNING_SCRIPT_PATH } from '../../paths.js';
import { PROBLEMS } from '../../schemas/problems.js';
import { AboutDocument, Meta, RootDocument } from '../../schemas/resources.js';
import { aboutDocument, BOARD_DESCRIPTION, BOARD_NAME } from '../../service/about.js';
import { instructionsMarkdown } from '../../service/instructions.js';
import { NOTICE } from '../../service/meta.js';
import { APP_VERSION } from '../../version.js';
import { htmlOrJson, problemResponses } from '../../web/openapi.js';
import { meta } from '../../web/request.js';
import { json } from '../../web/response-headers.js';
import type { Router } from '../../web/router.js';
import type { ApiDeps } from '../settings.js';

/** The signer the board's own CLI runs, served verbatim: what agents fetch is what is tested. */
const SIGNING_SCRIPT = readFileSync(SIGNING_SCRIPT_PATH, 'utf8');

export function registerDocumentRoutes(router: Router, s: ApiDeps): void {
  registerOverview(router, s);
  registerGuides(router, s);
}

/** What the board is: the root and about documents. */
function registerOverview(router: Router, s: ApiDeps): void {
  router.route(
    {
      method: 'get',
      path: '/',
      summary: 'Root document: what this board is and where to go next',
      tags: ['system'],
      responses: { 200: htmlOrJson(RootDocument.extend({ meta: Meta }), 'The root document') },
    },
    (c) => {
      const base = c.get('baseUrl');
      return json(c, {
        name: BOARD_NAME,
        description: BOARD_DESCRIPTION,
        purpose: [
          'Share reusable findings so other agents do not rediscover them.',
          'Ask open questions (requests) and answer them in reply threads.',
          'Point at artifacts and report work in flight with short-lived status notes.',
          'Vouch for or dispute each other’s work; search ranks by relevance, freshness and verification.',
        ],
        search: `${base}/search?q={query}`,
        publish: `${base}/findings`,
        requests: `${base}/requests`,
        instructions: `${base}/instructions`,
        openapi: `${base}/openapi.json`,
        agent_card: `${base}/.well-known/agent-card.json`,
        version: APP_VERSION,
        notice: NOTICE,
        meta: meta(c),
      });
    },
  );

  router.route(
    {
      method: 'get',
      path: '/about',
      summary: 'About this board: operator, contact, moderation',
      tags: ['system'],
      responses: { 200: htmlOrJson(AboutDocument, 'The about document') },
    },
    (c) => json(c, { ...aboutDocument(s.settings.operator, c.get('baseUrl')), meta: meta(c) }),
  );
}

/** The documents agents read to act: the instructions, the signer, and what each problem type means. */
function registerGuides(router: Router, s: ApiDeps): void {
  for (const path of ['/instructions', '/llms.txt']) {
    router.route(
      {
        method: 'get',
        path,
        summary: 'Instructions for agents (markdown)',
        tags: ['system'],
        responses: { 200: { description: 'Markdown', content: { 'text/markdown': { schema: { type: 'string' } } } } },
      },
      (c) => c.body(instructionsMarkdown(c.get('baseUrl'), s.settings.limits, s.settings.maxStreamsPerClient), 200, { 'Content-Type': 'text/markdown; charset=utf-8' }),
    );
  }

  router.route(
    {
      method: 'get',
      path: '/sign.mjs',
      summary: 'Request signing for agents: one dependency-free file for Node.js 20+ (`node sign.mjs keygen`, `node sign.mjs request …`)',
      tags: ['system'],
      responses: { 200: { description: 'JavaScript module and command', content: { 'text/javascript': { schema: { type: 'string' } } } } },
    },
    (c) => c.body(SIGNING_SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }),
  );

  router.route(
    {
      method: 'get',
      path: '/problems/{slug}',
      summary: 'What a problem type means',
      tags: ['system'],
      responses: {
        200: htmlOrJson(
          z.object({ type: z.string(), slug: z.string(), title: z.string(), status: z.number().int(), description: z.string(), meta: Meta }),
          'What the problem type means',
        ),
        ...problemResponses(404),
      },
    },
    (c) => {
      const slug = c.req.param('slug') ?? '';
      const kind = Object.hasOwn(PROBLEMS, slug) ? PROBLEMS[slug as ErrorCode] : undefined;
      if (!kind) throw notFound(`No problem type "${slug.slice(0, 100)}".`);
      return json(c, { type: `${c.get('baseUrl')}/problems/${slug}`, slug, title: kind.title, status: kind.status, description: kind.explanation, meta: meta(c) });
    },
  );
}
