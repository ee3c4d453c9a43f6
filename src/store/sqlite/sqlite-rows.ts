/**
 * What the SQLite halves share: the object row and its mapping, the "live" predicate in SQL
 * (mirrors domain/state.ts), the prepared-statement cache, and the writes several halves make.
 */
import type Database from 'better-sqlite3';
import type { LiveCriteria, StoredObject } from '../../domain/model.js';
import type { NewObject } from '../../ports/object-store.js';
import { objectParams, toStoredObject, type ObjectColumns } from '../object-columns.js';

/** Prepared statements by SQL text, shared by every half of one store. */
export type Sql = (text: string) => Database.Statement;

export interface ObjectRow extends ObjectColumns<number> {
  topics: string;
}

/** SQL for "live" on the table aliased `alias`; parameters @now and @dmin. Mirrors domain/state.ts. */
export const liveSql = (alias: string) =>
  `${alias}.hidden = 0 AND ${alias}.withdrawn = 0 AND ${alias}.expires_at > @now ` +
  `AND NOT (${alias}.contradiction_count >= @dmin AND ${alias}.contradiction_count > ${alias}.verification_count)`;

export const SELECT_OBJECT = `o.*, (SELECT count(*) FROM objects r WHERE r.parent_id = o.id AND ${liveSql('r')}) AS reply_count`;

export const liveParams = (live: LiveCriteria) => ({ now: live.now, dmin: live.disputeMinContradictions });

export const toObject = (row: ObjectRow): StoredObject => toStoredObject(row, JSON.parse(row.topics) as string[], (v) => v === 1);

/**
 * A LIMIT clause with the count inlined: bound as a parameter, better-sqlite3 passes a double
 * and SQLite runs the same query ten times slower. Counts are validated integers.
 */
export const limitSql = (n: number) => `LIMIT ${Math.max(0, Math.trunc(n))}`;

/** Quotes a token for an FTS5 MATCH expression. */
export const ftsToken = (t: string) => `"${t.replace(/"/g, '""')}"`;

/** `IN (@p0, @p1, …)` with its parameters. */
export function inList(prefix: string, values: readonly string[]): { sql: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  values.forEach((v, i) => (params[`${prefix}${i}`] = v));
  return { sql: `(${values.map((_, i) => `@${prefix}${i}`).join(', ')})`, params };
}


export function getObjectRow(sql: Sql, id: string, live: LiveCriteria): StoredObject | null {
  const row = sql(`SELECT ${SELECT_OBJECT} FROM objects o WHERE o.id = @id`).get({ id, ...liveParams(live) }) as
    | ObjectRow
    | undefined;
  return row ? toObject(row) : null;
}

/**
 * Copies an object's live-state columns onto its topic rows, which carry them so topic
 * counts read one index instead of joining every object (migration 4).
 */
export function syncTopicRows(sql: Sql, id: string): void {
  sql(
    `UPDATE object_topics SET (expires_at, hidden, withdrawn, verification_count, contradiction_count) =
       (SELECT o.expires_at, o.hidden, o.withdrawn, o.verification_count, o.contradiction_count FROM objects o WHERE o.id = @id)
     WHERE object_id = @id`,
  ).run({ id });
}

/** Inserts one object and its topic rows; the caller holds the write transaction. */
export function insertRow(sql: Sql, o: NewObject, hidden: boolean, withdrawn: boolean): void {
  sql(
    `INSERT INTO objects (id, type, title, content, topics, topics_text, source_url, parent_id, author_id, author_trust,
       author_base_trust, author_domain, created_at, expires_at, last_verified_at, verification_count, contradiction_count,
       hidden, withdrawn, injection, dedupe_key)
     VALUES (@id, @type, @title, @content, @topics, @topicsText, @sourceUrl, @parentId, @authorId,
       CASE WHEN EXISTS (SELECT 1 FROM reputable_authors WHERE author_id = @authorId) THEN 'reputable' ELSE @authorTrust END,
       @authorTrust, @authorDomain, @createdAt, @expiresAt, @lastVerifiedAt, @verifications, @contradictions,
       @hidden, @withdrawn, @injection, @dedupeKey)`,
  ).run({
    ...objectParams(o),
    topics: JSON.stringify(o.topics),
    hidden: hidden ? 1 : 0,
    withdrawn: withdrawn ? 1 : 0,
    injection: o.injectionSuspected ? 1 : 0,
  });
  const addTopic = sql(
    `INSERT OR IGNORE INTO object_topics (topic, object_id, expires_at, hidden, withdrawn, verification_count, contradiction_count)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const t of o.topics) {
    addTopic.run(t, o.id, o.expiresAt, hidden ? 1 : 0, withdrawn ? 1 : 0, o.verificationCount ?? 0, o.contradictionCount ?? 0);
  }
}

/** Adds the type and topic filters shared by both search legs. */
export function addFilters(q: { types?: readonly string[] | undefined; topics?: readonly string[] | undefined }, where: string[], params: Record<string, unknown>): void {
  if (q.types?.length) {
    const l = inList('type', q.types);
    where.push(`o.type IN ${l.sql}`);
    Object.assign(params, l.params);
  }
  if (q.topics?.length) {
    const l = inList('topic', q.topics);
    where.push(`EXISTS (SELECT 1 FROM object_topics t WHERE t.object_id = o.id AND t.topic IN ${l.sql})`);
    Object.assign(params, l.params);
  }
}
