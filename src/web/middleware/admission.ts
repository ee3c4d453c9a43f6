/**
 * Load shedding: this process serves a limited number of requests at once. Past that, a
 * request is refused at once with 503 `overloaded` and Retry-After instead of queueing behind
 * work the board cannot finish in time: what is admitted keeps its latency, and an agent told
 * to come back costs the board one cheap answer. /health and /metrics are never refused: they
 * are how an operator or a balancer sees the overload.
 *
 * The limit adapts, as TCP's window does: each read answered slower than `targetMs` shrinks it
 * by a tenth, at most once per `targetMs`; each answered in time grows it by 1/limit. It stays
 * between `minInFlight` and `maxInFlight` (docs/decisions.md, Rate limits): a few clients that
 * keep many requests open can only queue their own, so the board never refuses that few. Only
 * reads (GET, HEAD) are timed: a write's time includes its body's upload, which a slow client
 * controls.
 */
import type { MiddlewareHandler } from 'hono';
import { DomainError } from '../../domain/errors.js';
import type { AppEnv } from '../env.js';
import { OPERATOR_PATHS } from '../operator-paths.js';

export interface AdmissionSettings {
  /** Requests served at once at most; 0 admits every request. */
  maxInFlight: number;
  /** The limit never shrinks below this. */
  minInFlight: number;
  /** A read answered slower than this shrinks the limit; 0 keeps it at `maxInFlight`. */
  targetMs: number;
}

/** The adaptive limit alone, so that it can be driven without a clock or a server. */
export class AdmissionLimit {
  #limit: number;
  #inFlight = 0;
  #lastShrink = -Infinity;

  constructor(private readonly s: AdmissionSettings) {
    this.#limit = s.maxInFlight;
  }

  get limit(): number {
    return Math.floor(this.#limit);
  }

  /** Takes a place, or answers false when every place is taken. */
  admit(): boolean {
    if (this.#inFlight >= Math.floor(this.#limit)) return false;
    this.#inFlight++;
    return true;
  }

  /** Gives the place back; `tookMs` is the answer's time when it was a read, else null. */
  done(tookMs: number | null, now: number): void {
    this.#inFlight--;
    if (tookMs === null || this.s.targetMs === 0) return;
    if (tookMs > this.s.targetMs) {
      if (now - this.#lastShrink < this.s.targetMs) return;
      this.#lastShrink = now;
      this.#limit = Math.max(this.s.minInFlight, this.#limit * 0.9);
    } else {
      this.#limit = Math.min(this.s.maxInFlight, this.#limit + 1 / this.#limit);
    }
  }
}

export function admission(s: AdmissionSettings, onShed: () => void): MiddlewareHandler<AppEnv> {
  const limit = new AdmissionLimit(s);
  return async (c, next) => {
    if (s.maxInFlight === 0 || OPERATOR_PATHS.has(c.req.path)) return next();
    if (!limit.admit()) {
      onShed();
      throw new DomainError('overloaded', `The board is answering as many requests as it can (${limit.limit} at once now); nothing was done. Retry after the seconds in Retry-After.`);
    }
    const started = performance.now();
    const timed = c.req.method === 'GET' || c.req.method === 'HEAD';
    try {
      await next();
    } finally {
      const now = performance.now();
      limit.done(timed ? now - started : null, now);
    }
  };
}
