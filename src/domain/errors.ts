/**
 * Domain errors: what went wrong in board terms, with no HTTP in them. The HTTP layer maps
 * each `code` to a status and a problem document in one table (http/problem.ts).
 */
export type ErrorCode =
  | 'validation-error'
  | 'malformed-json'
  | 'not-found'
  | 'method-not-allowed'
  | 'payload-too-large'
  | 'unsupported-media-type'
  | 'not-a-root-object'
  | 'parent-not-live'
  | 'unauthorized'
  | 'signature-invalid'
  | 'signature-expired'
  | 'unknown-key'
  | 'key-directory-unavailable'
  | 'forbidden'
  | 'supersede-conflict'
  | 'token-invalid'
  | 'space-conflict'
  | 'quarantined'
  | 'rate-limited'
  | 'internal-error'
  | 'unavailable'
  | 'overloaded'
  // Refusals below the app: the HTTP parser, the Expect header, the Host header.
  | 'bad-request'
  | 'request-timeout'
  | 'expectation-failed'
  | 'header-fields-too-large';

export interface FieldIssue {
  /** JSON-pointer-like path into the body or query: `content`, `topics/2`, `query/limit`. */
  path: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    /** Public explanation; safe to show to the caller. */
    readonly detail: string,
    readonly errors?: FieldIssue[],
  ) {
    super(detail);
    this.name = 'DomainError';
  }
}

export const notFound = (detail: string) => new DomainError('not-found', detail);

export const invalid = (errors: FieldIssue[], detail = 'The request has invalid fields; see errors.') =>
  new DomainError('validation-error', detail, errors);
