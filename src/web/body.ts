/**
 * Reads a JSON request body safely: checks the media type, counts bytes on the stream itself
 * (never trusting Content-Length) and stops at the limit, then decodes strict UTF-8 and parses.
 */
import type { IncomingMessage } from 'node:http';
import { DomainError } from '../domain/errors.js';

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/**
 * The raw body, counted on the stream and refused past `maxBytes` (Content-Length is not
 * trusted). Under node:http it is read from the Node stream itself (`incoming`): turning it into
 * a web ReadableStream first cost each publish more (docs/performance.md).
 */
export async function readBodyBytes(req: Request, maxBytes: number, incoming?: IncomingMessage): Promise<Uint8Array> {
  const declared = Number(req.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  return incoming && !incoming.readableDidRead ? readIncoming(incoming, maxBytes) : readCapped(req, maxBytes);
}

/** Parses body bytes already read (a signed request's body is read once, for its digest). */
export function parseJsonBody(bytes: Uint8Array, contentType: string | null, opts: { optional?: boolean } = {}): unknown {
  if (bytes.length === 0 && opts.optional) return undefined;
  const type = contentType ?? '';
  if (!JSON_TYPE.test(type)) {
    throw new DomainError('unsupported-media-type', `Send the body as JSON with Content-Type: application/json${type ? ` (got ${type.slice(0, 100)})` : ''}.`);
  }
  if (bytes.length === 0) throw new DomainError('malformed-json', 'The body is empty; send a JSON object.');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new DomainError('malformed-json', 'The body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new DomainError('malformed-json', `The body is not valid JSON: ${(e as Error).message.slice(0, 200)}`);
  }
}

const tooLarge = (max: number) => new DomainError('payload-too-large', `The body is over ${max} bytes.`);

function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const settle = (err: unknown, body?: Uint8Array) => {
      incoming.off('data', onData).off('end', onEnd).off('error', settle).off('close', onClose);
      if (body) resolve(body);
      else reject(err);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total <= maxBytes) return void chunks.push(chunk);
      settle(tooLarge(maxBytes));
      // Discards the rest as node:http does with an unread body, so the 413 can still be sent.
      incoming.resume();
    };
    const onEnd = () => settle(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    const onClose = () => settle(new Error('The client closed the connection before the body ended.'));
    incoming.on('data', onData).on('end', onEnd).on('error', settle).on('close', onClose);
  });
}

async function readCapped(req: Request, maxBytes: number): Promise<Uint8Array> {
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
