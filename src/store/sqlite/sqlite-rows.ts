/**
 * What the SQLite halves share: the object row and its mapping, the "live" filter, the
 * prepared-statement cache, and the writes several halves make.
 */
import type Database from 'better-sqlite3';
import type { LiveCriteria, StoredObject } from '../../domain/model.js';
import { liveUntil } from '../../domain/state.js';
import type { ObjectVector } from '../../ports/embed-queue.js';
import type { NewObject } from '../../ports/object-store.js';
import { authorReputableSql, liveParams, liveTimeSql, trustSql, type Filters } from '../sql-fragments.js';
import { correctionsSql, insertedObject, objectParams, STANDING_COLUMNS, standingFacts, toStoredObject, type ObjectColumns, type StandingColumns } from '../object-columns.js';

/** Prepared statements by SQL text, shared by every half of one store. */
export type Sql = (text: string) => Database.Statement;

export interface ObjectRow extends ObjectColumns<number> {
  topics: string;
}

export { limitSql, liveParams, liveSql } from '../sql-fragments.js';

/** Whether `authorId` stands as reputable now (reputable_authors). */
export const isReputable = (sql: Sql, authorId: string): boolean => sql('SELECT 1 FROM reputable_authors WHERE author_id = ?').get(authorId) !== undefined;

/**
 * An object's row with its live reply count and its author's standing. The count names the
 * parent index: with statistics, the planner scanned the whole table instead (docs/performance.md).
 */
export const SELECT_OBJECT =
  `o.*, (SELECT count(*) FROM objects r INDEXED BY objects_parent_id WHERE r.parent_id = o.id AND ${liveTimeSql('r')}) AS reply_count, ` +
  `${authorReputableSql('o')} AS author_reputable, ` +
  `${correctionsSql((row, order) => `json_group_array(${row} ORDER BY ${order})`, (a, b) => `json_array(${a}, ${b})`)} AS corrections`;

export const toObject = (row: ObjectRow): StoredObject => toStoredObject(row, JSON.parse(row.topics) as string[], (v) => v === 1);

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
 * Runs `fn` as a write transaction of its own, or as part of the one already open (a group
 * commit's batch, which rolls back whole when a job throws): a savepoint there would make both
 * full-text indexes flush a segment per object.
 */
export function inWriteTransaction<T>(db: Database.Database, fn: () => T): T {
  return db.inTransaction ? fn() : db.transaction(fn).immediate();
}

/**
 * Every write to an object's facts goes through here: `set` is applied, and the standing the
 * domain derives from the facts it leaves is stored on the object and on its topic rows (which
 * carry it so topic counts read one index), only when it moved. False when there is no such
 * object, or (with `onlyIf`, a condition on its row) when it does not hold.
 */
export function writeFacts(sql: Sql, id: string, set: string, params: Record<string, unknown>, minContradictions: number, onlyIf?: string): boolean {
  const row = sql(`UPDATE objects SET ${set} WHERE id = @id${onlyIf ? ` AND ${onlyIf}` : ''} RETURNING live_until, ${STANDING_COLUMNS}`).get({ ...params, id }) as
    | (StandingColumns<number> & { live_until: number })
    | undefined;
  if (!row) return false;
  const until = liveUntil(standingFacts(row, (v) => v === 1), minContradictions);
  if (until !== row.live_until) {
    sql('UPDATE objects SET live_until = @until WHERE id = @id').run({ id, until });
    sql('UPDATE object_topics SET live_until = @until WHERE object_id = @id').run({ id, until });
  }
  return true;
}

/**
 * Inserts one object, its full-text rows, its embedding job and its topic rows, and answers it
 * as stored; the caller holds the write transaction. A new object has no replies yet.
 *
 * Each write is a statement of its own, with no trigger and no RETURNING: either makes SQLite
 * open a statement journal (a statement that writes twice and may abort), whose savepoint
 * makes both FTS5 tables flush what they hold as a segment of one object. A group commit's
 * batch then wrote a segment per object, and merged them (docs/performance.md).
 */
export function insertRow(sql: Sql, o: NewObject & { hidden?: boolean; withdrawn?: boolean; supersededBy?: string | null; quarantined?: boolean }, minContradictions: number, vector: ObjectVector | null = null): StoredObject {
  // Written by a quarantined source (a write that raced the quarantine): stored quarantined, never live.
  const quarantined = o.quarantined === true || (o.author !== null && sql(`SELECT 1 FROM quarantines q WHERE q.lifted_at IS NULL AND (q.keyid = ? OR q.domain = ?)`).get(o.author.id, o.author.domain) !== undefined);
  const p = objectParams({ ...o, quarantined }, minContradictions);
  const seq = Number(
    sql(
      `INSERT INTO objects (id, type, title, content, topics, topics_text, source_url, parent_id, author_id, author_trust,
         author_domain, created_at, expires_at, last_verified_at, verification_count, contradiction_count,
         hidden, withdrawn, injection, dedupe_key, live_until, supersedes, superseded_by, quarantined, space, promoted_to)
       VALUES (@id, @type, @title, @content, @topics, @topicsText, @sourceUrl, @parentId, @authorId, @authorTrust,
         @authorDomain, @createdAt, @expiresAt, @lastVerifiedAt, @verifications, @contradictions,
         @hidden, @withdrawn, @injection, @dedupeKey, @liveUntil, @supersedes, @supersededBy, @quarantined, @space, @promotedTo)`,
    ).run({
      ...p,
      topics: JSON.stringify(o.topics),
      hidden: p.hidden ? 1 : 0,
      quarantined: p.quarantined ? 1 : 0,
      withdrawn: p.withdrawn ? 1 : 0,
      injection: o.injectionSuspected ? 1 : 0,
    }).lastInsertRowid,
  );
  for (const fts of ['objects_fts', 'objects_fts_stem']) {
    sql(`INSERT INTO ${fts} (rowid, title, topics_text, content) VALUES (?, ?, ?, ?)`).run(seq, p.title, p.topicsText, p.content);
  }
  if (vector) putVector(sql, seq, vector);
  // When it was queued: wall clock, for /metrics.
  else sql('INSERT INTO embed_queue (seq, enqueued_at) VALUES (?, ?)').run(seq, Date.now());
  const addTopic = sql('INSERT OR IGNORE INTO object_topics (topic, object_id, live_until, space) VALUES (?, ?, ?, ?)');
  for (const t of o.topics) addTopic.run(t, o.id, p.liveUntil, p.space);
  return insertedObject(o, p, seq, p.authorId !== null && isReputable(sql, p.authorId));
}

/** A new object's vector, logged for the copies in memory. */
function putVector(sql: Sql, seq: number, { model, vector }: ObjectVector): void {
  sql('INSERT INTO object_vectors (seq, model, embedding) VALUES (?, ?, ?)').run(seq, model, vectorBlob(vector));
  logVectorChange(sql, seq);
}

/** How many changes the vector log keeps: a process further behind than this reloads its vectors (sqlite-vectors.ts). */
const VECTOR_CHANGES_KEPT = 100_000;
/** The log is trimmed once per this many changes. */
const VECTOR_LOG_TRIMMED_EVERY = 1000;

/**
 * Logs a vector stored for `seq`, for the copies processes hold in memory (sqlite-vectors.ts;
 * deletes are logged by a trigger). Logged here, not by a trigger: a statement that fires one
 * opens a statement journal, which inside a publish batch makes FTS5 flush a segment per object.
 */
export function logVectorChange(sql: Sql, seq: number): void {
  const id = Number(sql('INSERT INTO vector_changes (seq) VALUES (?)').run(seq).lastInsertRowid);
  if (id % VECTOR_LOG_TRIMMED_EVERY === 0) sql('DELETE FROM vector_changes WHERE id <= ?').run(id - VECTOR_CHANGES_KEPT);
}

/** A vector as its column holds it: the float32s' bytes. */
export function vectorBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** Adds the type and topic filters shared by both search legs. */
export function addFilters(q: Filters, where: string[], params: Record<string, unknown>): void {
  if (q.minTrust) where.push(trustSql('o', q.minTrust));
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
