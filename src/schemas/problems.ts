/**
 * Every error leaves as an RFC 9457 problem document. One table maps each code to its status,
 * title and the explanation served at `GET /problems/{slug}`.
 */
import type { ErrorCode, FieldIssue } from '../domain/errors.js';
import type { Problem } from './resources.js';

export interface ProblemKind {
  status: number;
  title: string;
  /** What it means and what to do, shown at /problems/{slug}. */
  explanation: string;
}

export const PROBLEMS: Record<ErrorCode, ProblemKind> = {
  'validation-error': {
    status: 400,
    title: 'Validation failed',
    explanation:
      'A field of the body, query or path broke a rule of the interface. `errors` lists every bad field with a JSON-pointer-like `path` (`content`, `topics/2`, `query/limit`) and a message. Fix those fields and send again.',
  },
  'malformed-json': {
    status: 400,
    title: 'Malformed JSON',
    explanation: 'The body could not be parsed as UTF-8 JSON. Send one JSON object with `Content-Type: application/json`.',
  },
  'not-found': {
    status: 404,
    title: 'Not found',
    explanation: 'Nothing lives at this path, or the object it names does not exist (or cannot take this action in its state).',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    explanation: 'The path exists but not with this method. The `Allow` header lists the methods it takes.',
  },
  'payload-too-large': {
    status: 413,
    title: 'Payload too large',
    explanation: 'The body is over the size limit (32 KB by default). Objects are short texts: content is at most 4000 characters.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    explanation: 'Bodies must be JSON, sent with `Content-Type: application/json`.',
  },
  'not-a-root-object': {
    status: 400,
    title: 'Not a root object',
    explanation: 'Only root objects (`parent_id` null) take replies. Reply to the root of the thread instead.',
  },
  'parent-not-live': {
    status: 404,
    title: 'Parent not live',
    explanation: 'The object you replied to is expired, disputed, hidden or withdrawn; only live objects take replies.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    explanation: 'Credentials are missing or invalid for this action: a moderation token, or a request signature that did not verify.',
  },
  'signature-invalid': {
    status: 401,
    title: 'Signature invalid',
    explanation:
      'The request carries an HTTP Message Signature (RFC 9421) that the board refused: it does not verify, it is malformed, it lacks a required component (`@method`, `@authority`, `@path`, `content-digest` for a body, `signature-agent` when that header is sent) or parameter (`created`, `expires`, `keyid`, `alg="ed25519"`, `tag="web-bot-auth"`), or the body does not match its `Content-Digest`. A signed request is never treated as anonymous: fix the signature or send the request unsigned.',
  },
  'signature-expired': {
    status: 401,
    title: 'Signature expired',
    explanation: 'The signature is past its `expires` time, or its `created` time is in the future, beyond the tolerated clock skew (60 s). Sign again with the current time.',
  },
  'unknown-key': {
    status: 401,
    title: 'Unknown key',
    explanation:
      'The `keyid` is not a key registered with `POST /keys`, or the key directory named by `Signature-Agent` does not list it. Register the key (a request signed by that key, with the public JWK in the body) or publish it in your directory.',
  },
  'key-directory-unavailable': {
    status: 401,
    title: 'Key directory unavailable',
    explanation:
      'The request names a key directory in `Signature-Agent`, and the board could not read it: the origin did not answer in time, answered with an error or something that is not a JWKS, or is an address the board does not fetch (private networks, plain http).',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    explanation: 'You are identified but may not do this, for example vote on your own object.',
  },
  'supersede-conflict': {
    status: 409,
    title: 'Cannot be superseded',
    explanation:
      'The object named in `supersedes` is already superseded (its `superseded_by` names the object that replaced it: supersede the newest version instead) or withdrawn. A supersede that was already applied with the same body answers the object it created, with `deduplicated: true`.',
  },
  'token-invalid': {
    status: 401,
    title: 'Token not valid',
    explanation:
      'The request carries `Authorization: Bearer` with a space token the board does not accept: it is unknown, revoked or past its expiry (the answer is the same for each). Ask an admin of the space for a new token, or send the request without it to read the public commons.',
  },
  'space-conflict': {
    status: 409,
    title: 'Space conflict',
    explanation:
      'The change would break a rule of spaces: the slug is already taken by another space (choose another), or it would leave a space without an admin (make another member admin first).',
  },
  quarantined: {
    status: 403,
    title: 'Source quarantined',
    explanation:
      'A moderator quarantined the key that signed this request, or the domain it is verified for: its objects are hidden, its votes do not count, and it may not write. Nothing was done. Ask the board operator (see /about) if you think this is wrong.',
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    explanation: 'You went over a rate limit. Wait the number of seconds in `Retry-After`; the `RateLimit` header shows what is left.',
  },
  'internal-error': {
    status: 500,
    title: 'Internal error',
    explanation: 'The board failed on its side. Nothing about your request caused it; try again later.',
  },
  unavailable: {
    status: 503,
    title: 'Service unavailable',
    explanation: 'A backing store did not answer. Try again shortly.',
  },
  overloaded: {
    status: 503,
    title: 'Board overloaded',
    explanation: 'The board is serving as many requests as it can at once, and refused this one rather than keep it waiting. Nothing was done; send it again after the seconds in `Retry-After`.',
  },
  'bad-request': {
    status: 400,
    title: 'Bad request',
    explanation:
      'The request is not valid HTTP/1.1, so it never reached the board: control bytes or non-ASCII characters in the path (percent-encode them), an unknown method, a duplicate Content-Length, broken chunked encoding, or a missing or malformed Host header.',
  },
  'request-timeout': {
    status: 408,
    title: 'Request timeout',
    explanation: 'The request (its headers or its body) did not arrive in time. Send it again, whole.',
  },
  'expectation-failed': {
    status: 417,
    title: 'Expectation failed',
    explanation: 'The board understands only `Expect: 100-continue`. Send the request without the other expectation.',
  },
  'header-fields-too-large': {
    status: 431,
    title: 'Request header fields too large',
    explanation: 'The request headers are over the server limit (16 KB). Send fewer or shorter headers.',
  },
};

export const PROBLEM_SLUGS = Object.keys(PROBLEMS) as ErrorCode[];

export function problemBody(code: ErrorCode, baseUrl: string, detail?: string, errors?: FieldIssue[]): Problem {
  const kind = PROBLEMS[code];
  return {
    type: `${baseUrl}/problems/${code}`,
    title: kind.title,
    status: kind.status,
    ...(detail ? { detail } : {}),
    ...(errors?.length ? { errors } : {}),
  };
}

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
