/**
 * Objects inserted many to a statement: publishes (pg-publishes.ts) and imports (pg-objects.ts).
 * Each round trip to the server costs more than the statement's work for one object, and a
 * publish alone in its transaction took five (BEGIN, the insert, its event, COMMIT, and the
 * plan setting); a batch of them now takes one, its own commit included.
 */
import type { NewEvent } from '../../domain/events.js';
import type { LiveCriteria, StoredObject } from '../../domain/model.js';
import type { ObjectVector } from '../../ports/embed-queue.js';
import type { NewObject } from '../../ports/object-store.js';
import { insertedObject, objectParams } from '../object-columns.js';
import { NOTIFY_CHANGED } from './pg-changes.js';
import { EVENT_COLUMNS, EVENTS_LOCK, eventValues } from './pg-events.js';
import { all, authorReputableSql, getObjectRow } from './pg-rows.js';
import type { PgStatements } from './pg-session.js';
import { flatVectors, MemoryVectors, notifyVectorsSql, VECTORS_CHANNEL, type PgvectorLeg } from './pg-vectors.js';

export interface RowToInsert {
  object: NewObject & { hidden?: boolean; withdrawn?: boolean; supersededBy?: string | null; quarantined?: boolean };
  live: LiveCriteria;
  /** Appended when the object is created (not when a duplicate is answered instead). */
  event: NewEvent | null;
  /** Stored with the object when it is created; without, the object joins the embedding queue. */
  vector?: ObjectVector | null;
}

/** Where vectors go: the semantic leg (none before the store is migrated, and imports store none). */
export type VectorLeg = PgvectorLeg | MemoryVectors | null;

export interface Inserted {
  object: StoredObject;
  created: boolean;
}

/** The rows' fields, by the names objectParams gives them, as jsonb_to_recordset reads them. */
const RECORD = `"n" int, "id" text, "type" text, "title" text, "content" text, "topics" text[], "topicsText" text, "sourceUrl" text,
  "parentId" text, "authorId" text, "authorTrust" text, "authorDomain" text, "createdAt" bigint, "expiresAt" bigint,
  "lastVerifiedAt" bigint, "verifications" int, "contradictions" int, "hidden" boolean, "withdrawn" boolean, "injection" boolean,
  "dedupeKey" text, "liveUntil" bigint, "supersedes" text, "supersededBy" text, "quarantined" boolean, "space" text, "promotedTo" text, "now" bigint, "event" jsonb, "model" text, "vecStart" int, "vecLen" int`;

/**
 * An object's full-text vector in the configuration given, from the SQL of its folded title,
 * topics and content, as the first schema's generated columns made it: weighted A, B and C.
 */
export const textVector = (config: 'simple' | 'english', folded: readonly [title: string, topics: string, content: string]) =>
  folded.map((text, i) => `setweight(to_tsvector('${config}', ${text}), '${'ABC'[i]}')`).join(' || ');

const FOLDED = ['f.title', 'f.topics', 'f.content'] as const;

/**
 * The statement, by where the vectors given with objects go (none: every object is queued).
 * Each object's texts are folded once, for both full-text vectors (textVector).
 * With @dedupe, each row first looks for a live object under its dedupe key
 * (agentboard_live_duplicate takes the key's lock, then looks with a snapshot that sees every
 * commit made under it) and is inserted only without one. The rows come sorted by key, so
 * that two statements take their keys' locks in one order and cannot deadlock; then the
 * events' lock, last, as every append takes it (pg-events.ts), once every row is in.
 * PostgreSQL runs the WITH writes nothing reads after the query, the last written first: the
 * events' insert, and the lock it reads, came before the topic rows, the vectors and the jobs,
 * and every other instance's appends waited for those too. Counted where the lock is taken,
 * those rows are in first.
 */
const insertRowsSql = (leg: 'pgvector' | 'memory' | null) => `
WITH r AS MATERIALIZED (SELECT * FROM jsonb_to_recordset(@rows::jsonb) AS r(${RECORD})),
existing AS MATERIALIZED (SELECT r.n, CASE WHEN @dedupe THEN agentboard_live_duplicate(r."dedupeKey", r.now) END AS id FROM r),
folded AS MATERIALIZED (
  SELECT r.n, agentboard_fold(r.title) AS title, agentboard_fold(r."topicsText") AS topics, agentboard_fold(r.content) AS content,
    r.quarantined OR (r."authorId" IS NOT NULL AND EXISTS (SELECT 1 FROM quarantines q WHERE q.lifted_at IS NULL AND (q.keyid = r."authorId" OR q.domain = r."authorDomain"))) AS quarantined
  FROM r JOIN existing e ON e.n = r.n WHERE e.id IS NULL),
o AS (
  INSERT INTO objects (id, type, title, content, topics, topics_text, source_url, parent_id, author_id, author_trust,
    author_domain, created_at, expires_at, last_verified_at, verification_count, contradiction_count,
    hidden, withdrawn, injection, dedupe_key, live_until, supersedes, superseded_by, quarantined, space, promoted_to, words, stems)
  SELECT r.id, r.type, r.title, r.content, r.topics, r."topicsText", r."sourceUrl", r."parentId", r."authorId", r."authorTrust",
    r."authorDomain", r."createdAt", r."expiresAt", r."lastVerifiedAt", r.verifications, r.contradictions,
    r.hidden, r.withdrawn, r.injection, r."dedupeKey", CASE WHEN f.quarantined THEN 0 ELSE r."liveUntil" END, r.supersedes, r."supersededBy", f.quarantined, r.space, r."promotedTo", ${textVector('simple', FOLDED)}, ${textVector('english', FOLDED)}
  FROM r JOIN folded f ON f.n = r.n ORDER BY r.n
  RETURNING seq, id, topics, author_id, live_until, quarantined, space),
topics AS (
  INSERT INTO object_topics (topic, object_id, live_until, space)
  SELECT DISTINCT t, o.id, o.live_until, o.space FROM o, unnest(o.topics) AS t RETURNING 1),
queued AS (INSERT INTO embed_queue (seq, enqueued_at) SELECT o.seq, @enqueuedAt FROM o JOIN r ON r.id = o.id WHERE r.model IS NULL RETURNING 1),${
  leg === null
    ? ''
    : `
vectored AS MATERIALIZED (
  SELECT o.seq, r.model, (@vectors::real[])[r."vecStart" + 1 : r."vecStart" + r."vecLen"] AS embedding FROM o JOIN r ON r.id = o.id WHERE r.model IS NOT NULL),
stored AS (
  INSERT INTO object_vectors (seq, model, embedding${leg === 'pgvector' ? ', vec' : ''})
  SELECT seq, model, embedding${leg === 'pgvector' ? ', embedding::vector' : ''} FROM vectored RETURNING 1),`
}${leg === 'memory' ? `\nnotified AS MATERIALIZED (${notifyVectorsSql('vectored')}),` : ''}
announced AS MATERIALIZED (
  SELECT ${EVENTS_LOCK}, ${NOTIFY_CHANGED}
  FROM (SELECT count(*) AS k FROM r JOIN o ON o.id = r.id WHERE r.event IS NOT NULL) c,
    (SELECT count(*) FROM topics) t, (SELECT count(*) FROM queued) q${leg === null ? '' : ', (SELECT count(*) FROM stored) s'}
  WHERE c.k > 0),
appended AS (
  INSERT INTO events (${EVENT_COLUMNS})
  SELECT ${eventValues('r.event')} FROM announced, r JOIN o ON o.id = r.id WHERE r.event IS NOT NULL ORDER BY r.n)
SELECT r.n, e.id AS existing_id, o.seq, o.quarantined, ${authorReputableSql('o')} AS author_reputable${
  leg === 'memory' ? ', (SELECT count(*) FROM notified) AS notified' : ''
}
FROM r JOIN existing e ON e.n = r.n LEFT JOIN o ON o.id = r.id`;
const INSERT_ROWS = { none: insertRowsSql(null), pgvector: insertRowsSql('pgvector'), memory: insertRowsSql('memory') };

/**
 * Inserts `rows` with their topic rows, vectors (given and `leg` known) or embedding jobs, and events, in one statement (one
 * transaction, unless `db` is already in one), and answers each as stored, in their order. With
 * `dedupe`, a row whose dedupe key a live object already has is answered with that object
 * (`created: false`) and nothing of it is written; of rows sharing a key, the first is inserted
 * and the others answered with it, as they would be one after another.
 */
export async function insertRows(db: PgStatements, rows: readonly RowToInsert[], enqueuedAt: number, dedupe: boolean, leg: VectorLeg = null): Promise<Inserted[]> {
  const firstOfKey = new Map<string, number>();
  const sent: { n: number; row: RowToInsert }[] = [];
  rows.forEach((row, n) => {
    if (dedupe) {
      if (firstOfKey.has(row.object.dedupeKey)) return;
      firstOfKey.set(row.object.dedupeKey, n);
    }
    sent.push({ n, row });
  });
  if (dedupe) sent.sort((a, b) => (a.row.object.dedupeKey < b.row.object.dedupeKey ? -1 : a.row.object.dedupeKey > b.row.object.dedupeKey ? 1 : a.n - b.n));
  // Each row's vector is its slice of one flat array, in the rows' order.
  const vectors: Float32Array[] = [];
  let offset = 0;
  // Each row's values as bound, by its index: a created object is answered from them (as it reads back).
  const bound = new Map<number, ReturnType<typeof objectParams>>();
  const json = sent.map(({ n, row: { object: o, live, event, vector } }) => {
    const slice = leg && vector ? { model: vector.model, vecStart: offset, vecLen: vector.vector.length } : { model: null, vecStart: 0, vecLen: 0 };
    if (slice.model !== null) {
      vectors.push(vector!.vector);
      offset += slice.vecLen;
    }
    const params = objectParams(o, live.disputeMinContradictions);
    bound.set(n, params);
    // The row's other fields join its values, which none of them names: a spread into a new
    // object cost several times as much per row.
    return Object.assign(params, { n, topics: o.topics, injection: o.injectionSuspected, now: live.now, event }, slice);
  });
  const { flat } = flatVectors(vectors);
  const memory = leg instanceof MemoryVectors;
  const answered = await all<{ n: number; existing_id: string | null; seq: string | number | null; quarantined: boolean | null; author_reputable: boolean | null }>(
    db,
    leg === null ? INSERT_ROWS.none : memory ? INSERT_ROWS.memory : INSERT_ROWS.pgvector,
    { rows: JSON.stringify(json), dedupe, enqueuedAt, ...(leg === null ? {} : { vectors: flat }), ...(memory ? { channel: VECTORS_CHANNEL, origin: leg.origin } : {}) },
  );
  const byN = new Map<number, Inserted>();
  const took = new Map<string, { seq: number; vector: Float32Array }[]>();
  for (const { n, existing_id: existingId, seq, quarantined, author_reputable: reputable } of answered) {
    if (existingId !== null) {
      // A duplicate is read by a second statement: the rare case keeps the common one's plan small.
      byN.set(n, { object: (await getObjectRow(db, existingId, rows[n]!.live))!, created: false });
      continue;
    }
    const { object: o, vector } = rows[n]!;
    if (vector && memory) {
      const items = took.get(vector.model) ?? [];
      items.push({ seq: Number(seq), vector: vector.vector });
      took.set(vector.model, items);
    }
    // A write that raced a quarantine of its author is stored quarantined (never live), and answered so.
    const params = quarantined ? { ...bound.get(n)!, quarantined: true, liveUntil: 0 } : bound.get(n)!;
    byN.set(n, { object: insertedObject(o, params, Number(seq), reputable === true), created: true });
  }
  // This instance's copy takes its own vectors in as they are; the others read them back.
  if (memory) for (const [model, items] of took) leg.took(model, items);
  return rows.map((row, n) => {
    const own = byN.get(n);
    if (own) return own;
    // A later row of a key already in this batch: answered with the first's object.
    return { object: byN.get(firstOfKey.get(row.object.dedupeKey)!)!.object, created: false };
  });
}
