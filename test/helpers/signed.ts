/** A request signed by a key made in the test, sent to a test board's app as an agent would send it. */
import { generateKey, publicJwkOf, signRequest } from '../../src/identity/agent-sign.mjs';
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
  /** More request headers, signed over as sent. */
  headers?: Record<string, string>;
}

/** Signs at the board's clock (plus `skew`) and answers the status and the parsed body. */
export async function signed(b: TestBoard, method: string, path: string, o: SignedOptions) {
  const body = o.body === undefined ? undefined : JSON.stringify(o.body);
  const request = new Request(`http://board.test${path}`, {
    method,
    headers: { 'x-forwarded-for': o.from ?? '203.0.113.9', ...(body ? { 'content-type': 'application/json' } : {}), ...o.headers },
    ...(body ? { body } : {}),
  });
  const s = await signRequest(request, { privateJwk: o.key.privateJwk, now: b.clock.now() + (o.skew ?? 0), ...(o.agent ? { agent: o.agent } : {}) });
  const sent = o.tamper ? o.tamper({ path, body }) : { path, body };
  const res = await b.app.request(`http://board.test${sent.path}`, { method, headers: s.headers, ...(sent.body ? { body: sent.body } : {}) });
  return { status: res.status, body: await parsedBody(res), res };
}

/** A JSON body, or the JSON of the last message of an event stream (an MCP answer). */
export async function parsedBody(res: Response): Promise<any> {
  const text = await res.text();
  if (!text) return undefined;
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) return JSON.parse(text);
  const data = text.split('\n').filter((l) => l.startsWith('data: '));
  return JSON.parse(data.at(-1)!.slice('data: '.length));
}

/** Registers each key with the board, as an agent does before it signs (POST /keys, signed by that key). */
export async function registerKeys(b: TestBoard, ...keys: Key[]): Promise<void> {
  for (const key of keys) {
    const r = await signed(b, 'POST', '/keys', { key, body: { jwk: publicJwkOf(key.privateJwk) } });
    if (r.status !== 201) throw new Error(`registering ${key.keyid}: ${r.status} ${JSON.stringify(r.body)}`);
  }
}
