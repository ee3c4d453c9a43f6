/**
 * Fixed-window rate limits through the Kv port, with the IETF httpapi RateLimit headers:
 * `RateLimit-Policy: "writes";q=60;w=3600` and `RateLimit: "writes";r=59;t=3412`.
 * A limit of 0 turns that policy off (and its headers with it).
 */
import type { MiddlewareHandler } from 'hono';
import type { Clock } from '../../ports/clock.js';
import { DomainError } from '../../domain/errors.js';
import type { Kv } from '../../ports/kv.js';
import type { AppEnv } from '../env.js';
import { addHeaders } from '../response-headers.js';

export interface RatePolicy {
  name: string;
  limit: number;
  windowSeconds: number;
}

export interface RateLimitOptions {
  kv: Kv;
  clock: Clock;
  /** The policy for this request and the key of the caller, or null to skip limiting. */
  policyFor: (c: Parameters<MiddlewareHandler<AppEnv>>[0]) => { policy: RatePolicy; key: string } | null;
  /** Called when the kv store fails; the request then goes through unlimited (fail open). */
  onKvError: (err: unknown) => void;
}

export class RateLimitedError extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    readonly policy: string,
  ) {
    super('rate-limited', `Rate limit reached; retry in ${retryAfterSeconds} s.`);
  }
}

/**
 * Counts one unit against `key` under `policy`: what is left and when the window resets, or
 * null when the policy is off or the kv failed (told to onKvError: a kv outage must not take
 * the board down with it, so the request is served unlimited).
 */
export async function charge(kv: Kv, policy: RatePolicy, key: string, now: number, onKvError: (err: unknown) => void): Promise<{ remaining: number; resetSeconds: number; over: boolean } | null> {
  if (policy.limit <= 0) return null;
  let window;
  try {
    window = await kv.hit(`rl:${policy.name}:${key}`, policy.windowSeconds * 1000, now);
  } catch (err) {
    onKvError(err);
    return null;
  }
  const resetSeconds = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  return { remaining: Math.max(0, policy.limit - window.count), resetSeconds, over: window.count > policy.limit };
}

export function rateLimit({ kv, clock, policyFor, onKvError }: RateLimitOptions): MiddlewareHandler<AppEnv> {
  return async function rateLimitMiddleware(c, next) {
    const chosen = policyFor(c);
    const { policy, key } = chosen ?? {};
    const left = policy && key ? await charge(kv, policy, key, clock.now(), onKvError) : null;
    if (!policy || !left) return next();
    addHeaders(c, { 'RateLimit-Policy': `"${policy.name}";q=${policy.limit};w=${policy.windowSeconds}`, RateLimit: `"${policy.name}";r=${left.remaining};t=${left.resetSeconds}` });
    if (left.over) throw new RateLimitedError(left.resetSeconds, policy.name);
    await next();
  };
}
