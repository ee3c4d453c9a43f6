/**
 * SQL both stores write alike: the stored forms of the domain's object rules, and the clauses
 * around them. Each store's dialect still decides its own statements; these are the shared words.
 */
import type { LiveCriteria } from '../domain/model.js';

/** "Live" on the table aliased `alias` (parameter @now): the stored form of domain/state.ts `liveUntil`. */
export const liveSql = (alias: string) => `${alias}.live_until > @now`;

/** The parameters `liveSql` and `vectorWantedSql` read. */
export const liveParams = (live: LiveCriteria) => ({ now: live.now });

/**
 * Whether the object on the table aliased `alias` still wants a vector (parameter @now): the
 * stored form of domain/state.ts `vectorWantedUntil(o) > now`, which the embedding queues keep.
 */
export const vectorWantedSql = (alias: string) => `(NOT ${alias}.withdrawn AND ${alias}.superseded_by IS NULL AND ${alias}.expires_at > @now)`;

/** Whether the author of the object on the table aliased `alias` stands as reputable (reputable_authors). */
export const authorReputableSql = (alias: string) => `EXISTS (SELECT 1 FROM reputable_authors ra WHERE ra.author_id = ${alias}.author_id)`;

/**
 * A LIMIT clause with the validated count inlined: bound as a parameter, better-sqlite3 passes a
 * double and SQLite plans the statement far worse (docs/performance.md).
 */
export const limitSql = (n: number) => `LIMIT ${Math.max(0, Math.trunc(n))}`;
