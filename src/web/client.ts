/** Who is calling: the client address and the anonymous voter identity derived from it. */
import { ANONYMOUS_VOTER } from '../domain/model.js';
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/** What @hono/node-server puts in `c.env`; absent when the app is called directly (app.request). */
interface NodeBindings {
  incoming?: IncomingMessage;
}

/** The Node request under this one, when the board runs on node:http. */
export function nodeIncoming(c: Context): IncomingMessage | undefined {
  return (c.env as NodeBindings | undefined)?.incoming;
}

/** The peer address, or the first X-Forwarded-For hop when the board trusts its proxy. */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  return nodeIncoming(c)?.socket?.remoteAddress ?? 'unknown';
}

/** A keyed hash of the address: stable per client, useless for recovering the address. */
export function anonymousVoterId(secret: string, address: string): string {
  return `${ANONYMOUS_VOTER}${createHmac('sha256', secret).update(address).digest('base64url').slice(0, 32)}`;
}
