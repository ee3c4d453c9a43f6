/**
 * The little the board reads from a `WWW-Authenticate` header (RFC 9110 §11.6.1, RFC 9728 §5.1):
 * the first challenge's scheme and a `resource_metadata` address. The header is third-party
 * input: only a token is accepted as scheme and only an absolute http(s) URL as address.
 */
import { webUrl } from './third-party.js';

export interface Challenge {
  scheme: string | null;
  resourceMetadata: string | null;
}

export function readChallenge(header: string | null): Challenge {
  if (!header) return { scheme: null, resourceMetadata: null };
  const h = header.slice(0, 4096);
  const scheme = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]{1,40})(?=\s|,|$)/.exec(h)?.[1] ?? null;
  const param = /(?:^|[\s,])resource_metadata\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/i.exec(h);
  const raw = param ? (param[1]?.replace(/\\(.)/g, '$1') ?? param[2]) : null;
  return { scheme, resourceMetadata: webUrl(raw) };
}
