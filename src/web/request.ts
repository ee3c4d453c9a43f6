/** What every route reads of its request: query and path, the caller, the body, and cached JSON answers. */
import type { Context } from 'hono';
import type { z } from 'zod';
import type { WebSettings } from './services.js';
import type { Actor, StoredObject } from '../domain/model.js';
import { anonymousVoterId, clientAddress, nodeIncoming } from './client.js';
import { presenterAt } from '../service/present.js';
import type { Board } from '../service/board.js';
import type { ReadCache } from '../service/read-cache.js';
import { parseOrThrow } from '../schemas/parse.js';
import { invalid } from '../domain/errors.js';
import { SPEC_LIMITS } from '../domain/limits.js';
import { normalizeFilterTopic } from '../domain/topics.js';
import type { AppEnv } from './env.js';
import { buildMeta } from '../service/meta.js';
import { parseJsonBody, readBodyBytes } from './body.js';
import { wantsHtml } from './negotiate.js';
import { respond } from './response-headers.js';

export type Ctx = Context<AppEnv>;

export const parseQuery = <S extends z.ZodType>(c: Ctx, schema: S): z.output<S> => {
  const raw: Record<string, string | string[]> = {};
  // Most reads carry no query string: nothing to parse.
  if (c.req.url.includes('?')) {
    const url = new URL(c.req.url);
    for (const key of new Set(url.searchParams.keys())) {
      const all = url.searchParams.getAll(key);
      raw[key] = all.length > 1 ? all : all[0]!;
    }
  }
  return parseOrThrow(schema, raw, 'query');
};

export const parseParams = <S extends z.ZodType>(c: Ctx, schema: S): z.output<S> => parseOrThrow(schema, c.req.param(), 'path');

/** The `{slug}` of a topic's path, normalised as a filter topic is (docs/decisions.md, Topics). */
export function topicSlugParam(c: Ctx): string {
  const { min, max } = SPEC_LIMITS.topicInFilter;
  const slug = normalizeFilterTopic(c.req.param('slug') ?? '', min, max);
  if (slug === null) throw invalid([{ path: 'path/slug', message: `must be a topic of ${min} to ${max} characters` }]);
  return slug;
}

export const meta = (c: Ctx, search?: string, advice?: string) => buildMeta(c.get('baseUrl'), c.req.url, search, advice);

/** A presenter bound to this request's base URL and clock. */
export const presenter = (c: Ctx, s: { board: Board }) => presenterAt(c.get('baseUrl'), s.board);

/**
 * An anonymous caller: its voter id is a keyed hash of its address, made when first read (votes
 * read it, publishes do not). A class with the getter on its prototype: a per-request object
 * literal with a getter kept every request alive through young collections (docs/performance.md).
 */
class AnonymousActor implements Actor {
  readonly author = null;
  #voterId: string | undefined;

  constructor(
    private readonly c: Ctx,
    private readonly web: WebSettings,
  ) {}

  get voterId(): string {
    return (this.#voterId ??= anonymousVoterId(this.web.voterSecret, clientAddress(this.c, this.web.trustProxy)));
  }
}

/**
 * Who is acting: the signed author the signature middleware set, else an anonymous caller, with
 * the space token the request carries. A token's holder votes as the token. Made on first use:
 * most requests (reads) never ask.
 */
export function actorOf(c: Ctx, s: { web: WebSettings }): Actor {
  let actor = c.get('actor');
  const token = c.get('token') ?? null;
  if (!actor) {
    actor = token ? { author: null, voterId: `token:${token.id}`, token } : new AnonymousActor(c, s.web);
    c.set('actor', actor);
  } else if (token && actor.token !== token) {
    actor = { author: actor.author, voterId: actor.voterId, token };
    c.set('actor', actor);
  }
  return actor;
}

/** The JSON body: the bytes the signature middleware read, else read now (capped). */
export async function jsonBody(c: Ctx, s: { web: WebSettings }, opts: { optional?: boolean } = {}): Promise<unknown> {
  const bytes = c.get('rawBody') ?? (await readBodyBytes(c.req.raw, s.web.maxBodyBytes, nodeIncoming(c)));
  return parseJsonBody(bytes, c.req.header('content-type') ?? null, opts);
}

/** Whether an If-None-Match header names `etag` (weak comparison, RFC 9110 §13.1.2). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/**
 * A JSON read answered through the read cache (service/read-cache.ts), with its ETag; a request
 * whose If-None-Match names it gets 304 without a body. `Cache-Control: no-cache`: clients may
 * keep the answer but must revalidate, since a write or an expiry may change it at any moment.
 * `compute` answers the body and every object it shows.
 */
export async function cachedJson(c: Ctx, s: { readCache: ReadCache }, compute: () => Promise<{ body: object; shown: readonly StoredObject[] }>, opts: { scoped?: boolean } = {}): Promise<Response> {
  // The URL alone: the base URL the answer links with is BASE_URL, or else the URL's own origin.
  // A read of a space is never looked up by its URL: each is answered for its own grant.
  const answer = await s.readCache.read(
    c.req.url,
    async () => {
      const r = await compute();
      return { body: JSON.stringify(r.body), shown: r.shown };
    },
    { bypass: opts.scoped === true },
  );
  if (etagMatches(c.req.header('if-none-match'), answer.etag)) return respond(c, null, 304, { ETag: answer.etag, 'Cache-Control': 'no-cache' });
  return respond(c, answer.body, 200, { ETag: answer.etag, 'Cache-Control': 'no-cache', 'Content-Type': 'application/json' });
}

/** Marks the request as a browser page when it asks for HTML; returns whether it did. */
export function htmlRequested(c: Ctx): boolean {
  const html = wantsHtml(c.req.header('accept'));
  if (html) c.set('htmlPage', true);
  return html;
}
