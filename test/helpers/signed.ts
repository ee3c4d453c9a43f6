/** A request signed by a key made in the test, sent to a test board's app as an agent would send it. */
import { generateKey, signRequest } from '../../src/identity/agent-sign.mjs';
import type { TestBoard } from './board.js';

export type Key = ReturnType<typeof generateKey>;

export interface SignedOptions {
  key: Key;
  body?: unknown;
  agent?: string;
  /** Signing time offset from the board clock, ms. */
  skew?: number;
  /** Changes the request after signing. */
  tamper?: (r: { path: string; body: string | undefined }) => { path: string; body: string | undefined };
  from?: string;
}

/** Signs at the board's clock (plus `skew`) and answers the status and the parsed body. */
export async function signed(b: TestBoard, method: string, path: string, o: SignedOptions) {
  const body = o.body === undefined ? undefined : JSON.stringify(o.body);
  const request = new Request(`http://board.test${path}`, {
    method,
    headers: { 'x-forwarded-for': o.from ?? '203.0.113.9', ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body } : {}),
  });
  const s = await signRequest(request, { privateJwk: o.key.privateJwk, now: b.clock.now() + (o.skew ?? 0), ...(o.agent ? { agent: o.agent } : {}) });
  const sent = o.tamper ? o.tamper({ path, body }) : { path, body };
  const res = await b.app.request(`http://board.test${sent.path}`, { method, headers: s.headers, ...(sent.body ? { body: sent.body } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, res };
}
