/**
 * Outbound HTTP for everything the board fetches from the world (registry, MCP probes, key
 * directories). Every byte from outside is hostile, and so is every address:
 *
 * - the address a connection actually uses is checked inside its own DNS lookup, so a name
 *   that resolves to a private address is refused at connect time (no check-then-connect gap);
 * - loopback, private, link-local (cloud metadata), unique-local, carrier-grade NAT,
 *   IPv4-mapped, multicast and reserved addresses are refused unless private networks are
 *   allowed (ALLOW_PRIVATE_NETWORK, for tests and private deployments);
 * - plain http only when private networks are allowed;
 * - redirects are followed by hand, each hop checked again; the body is capped; one deadline
 *   covers the whole exchange.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import ipaddr from 'ipaddr.js';

export interface SafeFetchOptions {
  allowPrivateNetwork: boolean;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
  /** Overrides which resolved addresses may be reached (default: public unicast only, or all when private networks are allowed). */
  addressAllowed?: (ip: string) => boolean;
  /** Aborts the exchange early (the caller's own deadline); the timeout still applies. */
  signal?: AbortSignal;
}

export interface SafeResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Uint8Array;
  /** The final address after redirects. */
  url: string;
  text(): string;
}

/** Why an outbound exchange was stopped: the target is not allowed, or its answer broke a bound. */
export type RefusalReason = 'address' | 'scheme' | 'credentials' | 'redirects' | 'too-large' | 'timeout';

export class OutboundRefused extends Error {
  constructor(
    message: string,
    readonly reason: RefusalReason,
  ) {
    super(message);
    this.name = 'OutboundRefused';
  }
}

/** True for addresses on the public internet (unicast, not mapped, not reserved). */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    // ::/96 (unspecified, loopback, and the deprecated IPv4-compatible ::a.b.c.d) is never public;
    // ipaddr.js calls ::7f00:1 unicast.
    if (v6.parts.slice(0, 6).every((p) => p === 0)) return false;
    if (v6.isIPv4MappedAddress()) addr = v6.toIPv4Address();
  }
  return addr.range() === 'unicast';
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function safeFetch(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  o: SafeFetchOptions,
): Promise<SafeResponse> {
  const allowed = o.addressAllowed ?? ((ip: string) => o.allowPrivateNetwork || isPublicAddress(ip));
  const deadline = AbortSignal.timeout(o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([deadline, o.signal]) : deadline;
  let target = new URL(url);
  let method = init.method ?? 'GET';
  let body = init.body;
  for (let hop = 0; ; hop++) {
    checkUrl(target, o.allowPrivateNetwork, allowed);
    const res = await once(target, method, init.headers ?? {}, body, allowed, o.maxBytes, signal);
    const location = res.headers.location;
    if (REDIRECTS.has(res.status) && location) {
      if (hop >= (o.maxRedirects ?? 5)) throw new OutboundRefused(`too many redirects from ${url}`, 'redirects');
      target = new URL(location, target);
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    return { ...res, url: target.toString(), text: () => new TextDecoder().decode(res.body) };
  }
}

function checkUrl(u: URL, allowPrivate: boolean, allowed: (ip: string) => boolean): void {
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && allowPrivate)) {
    throw new OutboundRefused(`refused ${u.protocol}// (only https${allowPrivate ? ' or http' : ''} is fetched)`, 'scheme');
  }
  if (u.username || u.password) throw new OutboundRefused('refused a URL with credentials', 'credentials');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  // A literal address never goes through DNS lookup: check it here.
  if (ipaddr.isValid(host) && !allowed(host)) throw new OutboundRefused(`refused address ${host}`, 'address');
}

function guardedLookup(allowed: (ip: string) => boolean) {
  return (hostname: string, options: object, callback: (...args: unknown[]) => void): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      const refused = addresses.find((a) => !allowed(a.address));
      if (refused) return callback(new OutboundRefused(`refused ${hostname}: it resolves to ${refused.address}`, 'address'));
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

function once(
  u: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  allowed: (ip: string) => boolean,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Uint8Array }> {
  return new Promise((resolve, reject) => {
    // Past the deadline, whatever broke the exchange is reported as the timeout it is.
    const fail = (err: Error) => reject(signal.aborted && !(err instanceof OutboundRefused) ? new OutboundRefused(`no answer from ${u.host} in time`, 'timeout') : err);
    const mod = u.protocol === 'https:' ? https : http;
    const req = mod.request(u, { method, headers, signal, lookup: guardedLookup(allowed) as never }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size > maxBytes) return;
        size += chunk.length;
        if (size > maxBytes) {
          // Reject first, then drop the connection without an error event nobody would catch.
          fail(new OutboundRefused(`response from ${u.host} is over ${maxBytes} bytes`, 'too-large'));
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: new Uint8Array(Buffer.concat(chunks)) }));
      res.on('error', fail);
    });
    req.on('error', fail);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
