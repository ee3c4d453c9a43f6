/**
 * SQL both stores write alike: the stored forms of the domain's object rules, and the clauses
 * around them. Each store's dialect still decides its own statements; these are the shared words.
 */
import type { LiveCriteria, TrustLevel } from '../domain/model.js';

/**
 * "Live" in the scope read, on the table aliased `alias` (parameters @now and @space): the
 * stored form of domain/state.ts `liveUntil`, in one space or the commons (space '').
 */
export const liveSql = (alias: string) => `${alias}.live_until > @now AND ${alias}.space = @space`;

/** "Live" by time alone: for rows that share the space of one already read (an object's replies). */
export const liveTimeSql = (alias: string) => `${alias}.live_until > @now`;

/** The parameters `liveSql`, `liveTimeSql` and `vectorWantedSql` read. */
export const liveParams = (live: LiveCriteria) => ({ now: live.now, space: live.space ?? '' });

/**
 * Whether the object on the table aliased `alias` still wants a vector (parameter @now): the
 * stored form of domain/state.ts `vectorWantedUntil(o) > now`, which the embedding queues keep.
 */
export const vectorWantedSql = (alias: string) => `(NOT ${alias}.withdrawn AND ${alias}.superseded_by IS NULL AND ${alias}.expires_at > @now)`;

/** Whether the author of the object on the table aliased `alias` stands as reputable (reputable_authors). */
export const authorReputableSql = (alias: string) => `EXISTS (SELECT 1 FROM reputable_authors ra WHERE ra.author_id = ${alias}.author_id)`;

/** The filters listings and both search legs share, besides liveness. */
export interface Filters {
  types?: readonly string[] | undefined;
  topics?: readonly string[] | undefined;
  minTrust?: TrustLevel | undefined;
}

/** Whether a search names any filter besides liveness (some paths serve only unfiltered ones). */
export const hasFilters = (q: Filters): boolean =>
  Boolean(q.types?.length || q.topics?.length || q.minTrust);

/**
 * Whether the author of the object on the table aliased `alias` shows at least `level` of trust:
 * the stored form of domain/trust.ts `trustAtLeast`. A reputable author passes every level;
 * otherwise the trust their signature earned decides.
 */
export function trustSql(alias: string, level: TrustLevel): string {
  if (level === 'reputable') return authorReputableSql(alias);
  if (level === 'domain-verified') return `(${alias}.author_trust = 'domain-verified' OR ${authorReputableSql(alias)})`;
  return `${alias}.author_id IS NOT NULL`;
}

/** ` AND` the topic row aliased `alias` is of an object whose author shows `level` of trust; nothing without a level. */
export const topicTrustSql = (alias: string, level: TrustLevel | undefined): string =>
  level ? ` AND EXISTS (SELECT 1 FROM objects o WHERE o.id = ${alias}.object_id AND ${trustSql('o', level)})` : '';

/**
 * Whether an active quarantine covers the author of the object aliased `alias` (its key, or the
 * domain it was verified for): what the object's `quarantined` flag must say.
 */
export const objectCoveredSql = (alias: string) =>
  `EXISTS (SELECT 1 FROM quarantines q WHERE q.lifted_at IS NULL AND (q.keyid = ${alias}.author_id OR q.domain = ${alias}.author_domain))`;

/** Whether an active quarantine covers the voter of the vote aliased `alias`: what the vote's `quarantined` flag must say. */
export const voteCoveredSql = (alias: string) =>
  `EXISTS (SELECT 1 FROM quarantines q WHERE q.lifted_at IS NULL AND (q.keyid = ${alias}.voter_id OR q.domain = ${alias}.voter_domain))`;

/**
 * A LIMIT clause with the validated count inlined: bound as a parameter, better-sqlite3 passes a
 * double and SQLite plans the statement far worse (docs/performance.md).
 */
export const limitSql = (n: number) => `LIMIT ${Math.max(0, Math.trunc(n))}`;
