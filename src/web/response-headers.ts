/**
 * The headers every answer carries (request id, security, CORS, rate limits). Middleware adds
 * them to a plain object per request, `c.var.headers`; an answer made by `respond()` takes them
 * as plain headers, which @hono/node-server writes straight to Node. Any other answer (made by
 * Hono's c.json/c.body/c.html, or a stream) gets those it lacks once the app has made it
 * (`finishHeaders`). Hono's c.header() keeps a WHATWG Headers object per request: validating,
 * lower-casing and sorting nine headers, then copying them back to a plain object for Node, was
 * about 17,000 instructions of a cached GET's 310,000 (callgrind). So routes answer JSON through
 * json() and give their own headers to it: Hono's c.header() reaches only answers Hono makes
 * (test/api/headers.test.ts checks every kind of answer).
 */
import type { AppEnv } from './env.js';
import type { Context } from 'hono';

type Ctx = Context<AppEnv>;

/** Marks an answer respond() made: it holds the request's headers already. (A WeakSet costs the collector.) */
const COMPLETE = Symbol('complete');

/** Adds headers to this request's answer, whichever way it is made. */
export function addHeaders(c: Ctx, headers: Record<string, string>): void {
  Object.assign(c.get('headers'), headers);
}

/** An answer with this request's headers and its own (`own` wins). */
export function respond(c: Ctx, body: string | Uint8Array<ArrayBuffer> | null, status: number, own: Record<string, string>): Response {
  // The request's own object: nothing else reads it once its answer is made.
  const res = new Response(body, { status, headers: Object.assign(c.get('headers'), own) });
  (res as Response & { [COMPLETE]?: true })[COMPLETE] = true;
  return res;
}

/** A JSON answer (as Hono's c.json writes it) with this request's headers and its own. */
export function json(c: Ctx, body: unknown, status = 200, own: Record<string, string> = {}): Response {
  return respond(c, JSON.stringify(body), status, { 'Content-Type': 'application/json', ...own });
}

/** Puts the request's headers on an answer respond() did not make, except those it set itself. */
export function finishHeaders(c: Ctx): void {
  if ((c.res as Response & { [COMPLETE]?: true })[COMPLETE]) return;
  const target = c.res.headers;
  const headers = c.get('headers');
  for (const name in headers) if (!target.has(name)) target.set(name, headers[name]!);
}
