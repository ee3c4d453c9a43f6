/**
 * Every refusal as a problem document: the app's 404 and 405, and every error a route throws.
 * A browser page's refusal renders as a page (`htmlPage`); nothing else ever answers HTML.
 */
import type { Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import { DomainError, type ErrorCode } from '../domain/errors.js';
import type { BoardMetrics } from '../metrics.js';
import { PROBLEM_MEDIA_TYPE, PROBLEMS, problemBody } from '../schemas/problems.js';
import type { Problem } from '../schemas/resources.js';
import type { AppEnv } from './env.js';
import { RateLimitedError } from './middleware/rate-limit.js';
import { wantsHtml } from './negotiate.js';
import type { Router } from './router.js';

export interface ProblemAnswerDeps {
  router: Router;
  metrics: BoardMetrics;
  log: Logger;
  /** The HTML page of a problem, for browsers. */
  errorPage: (problem: Problem) => string;
}

export function answerProblems(app: Hono<AppEnv>, deps: ProblemAnswerDeps): void {
  const { router, metrics, log } = deps;
  const problem = (c: Context<AppEnv>, code: ErrorCode, detail?: string, err?: DomainError) => {
    const body = problemBody(code, c.get('baseUrl') ?? '', detail, err?.errors);
    const headers: Record<string, string> = {};
    if (err instanceof RateLimitedError) headers['Retry-After'] = String(err.retryAfterSeconds);
    if (code === 'unavailable' || code === 'overloaded') headers['Retry-After'] = '1';
    if (code === 'method-not-allowed') headers.Allow = router.allowed(c.req.path).join(', ');
    if (c.req.method === 'GET' && wantsHtml(c.req.header('accept')) && c.get('htmlPage')) return c.html(deps.errorPage(body), body.status as 400, headers);
    return c.body(JSON.stringify(body), body.status as 400, { ...headers, 'Content-Type': PROBLEM_MEDIA_TYPE });
  };

  app.notFound((c) => {
    const allowed = router.allowed(c.req.path);
    if (allowed.length > 0) return problem(c, 'method-not-allowed', `${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(', ')}.`);
    c.set('htmlPage', true);
    return problem(c, 'not-found', `Nothing at ${c.req.path}. The API is described at /openapi.json.`);
  });

  app.onError((err, c) => {
    if (err instanceof RateLimitedError) metrics.rateLimited(err.policy);
    if (err instanceof DomainError) return problem(c, err.code, err.detail, err);
    if (err instanceof HTTPException && err.status < 500) {
      const code = (Object.entries(PROBLEMS).find(([, p]) => p.status === err.status)?.[0] ?? 'validation-error') as ErrorCode;
      return problem(c, code, err.message || undefined);
    }
    // A client that hung up mid-body is no failure of ours; nobody will read the answer.
    if (c.req.raw.signal.aborted) {
      log.info({ request_id: c.get('requestId') }, 'client closed the connection before the request was read');
      return problem(c, 'bad-request', 'The connection closed before the request body arrived.');
    }
    log.error({ request_id: c.get('requestId'), err }, 'unhandled error');
    return problem(c, 'internal-error', 'The board failed to answer this request; it has been logged.');
  });
}
