/**
 * Who is charged for what: signed callers per author, space tokens per token, anonymous ones per address; reads (and an
 * MCP exchange) against the read policy, everything else against a write policy. /health and
 * /metrics come from infrastructure, not agents, and are never limited.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Clock } from '../../ports/clock.js';
import type { Kv } from '../../ports/kv.js';
import { clientAddress } from '../client.js';
import type { AppEnv } from '../env.js';
import { OPERATOR_PATHS } from '../operator-paths.js';
import { charge, rateLimit, RateLimitedError, type RatePolicy } from './rate-limit.js';


export interface LimitSettings {
  anonWrites: number;
  signedWrites: number;
  reads: number;
  writeWindowSeconds: number;
  readWindowSeconds: number;
}

export interface Limits {
  /** The rate-limit middleware, to run after the signature middleware. */
  middleware: MiddlewareHandler<AppEnv>;
  /** Counts one write against the caller, as a POST would; throws RateLimitedError when over. */
  chargeWrite(c: Context<AppEnv>): Promise<void>;
  /** Counts one anonymous write against the caller's address (what a key-directory fetch costs). */
  chargeAddress(c: Context<AppEnv>): Promise<void>;
}

export function limits(r: LimitSettings, deps: { kv: Kv; clock: Clock; trustProxy: boolean; onKvError: (err: unknown) => void }): Limits {
  const { kv, clock, trustProxy, onKvError } = deps;
  const anonWrites: RatePolicy = { name: 'writes', limit: r.anonWrites, windowSeconds: r.writeWindowSeconds };
  const signedWrites: RatePolicy = { name: 'signed-writes', limit: r.signedWrites, windowSeconds: r.writeWindowSeconds };
  const reads: RatePolicy = { name: 'reads', limit: r.reads, windowSeconds: r.readWindowSeconds };
  // A space token is counted as a key is: per token, whatever address it comes from.
  const callerKey = (c: Context<AppEnv>) => {
    const author = c.get('signature')?.keyid;
    if (author) return `author:${author}`;
    const token = c.get('token')?.id;
    return token ? `token:${token}` : clientAddress(c, trustProxy);
  };
  const writePolicy = (c: Context<AppEnv>) => ({ policy: c.get('signature') || c.get('token') ? signedWrites : anonWrites, key: callerKey(c) });
  const chargeOrThrow = async (policy: RatePolicy, key: string) => {
    const left = await charge(kv, policy, key, clock.now(), onKvError);
    if (left?.over) throw new RateLimitedError(left.resetSeconds, policy.name);
  };
  const middleware = rateLimit({
    kv,
    clock,
    policyFor(c) {
      if (OPERATOR_PATHS.has(c.req.path) || c.req.method === 'OPTIONS') return null;
      // An MCP exchange counts as a read; its write tools charge a write on top (chargeWrite).
      if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.path === '/mcp') return { policy: reads, key: callerKey(c) };
      return writePolicy(c);
    },
    onKvError,
  });
  return {
    middleware,
    chargeWrite: (c) => {
      const { policy, key } = writePolicy(c);
      return chargeOrThrow(policy, key);
    },
    chargeAddress: (c) => chargeOrThrow(anonWrites, clientAddress(c, trustProxy)),
  };
}
