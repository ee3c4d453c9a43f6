/**
 * A publish's writes, inside the group commit's transaction: the object goes in unless a live
 * one has its dedupe key (then that one is answered), with its `created` event. Plain calls on
 * the connection's statements: the store's halves, each call through their guard, took a
 * promise and a proxy each.
 */
import type { NewEvent } from '../../domain/events.js';
import type { LiveCriteria, StoredObject } from '../../domain/model.js';
import type { ObjectVector } from '../../ports/embed-queue.js';
import type { NewObject } from '../../ports/object-store.js';
import { appendEvent } from './sqlite-events.js';
import { getObjectRow, insertRow, liveParams, liveSql, type Sql } from './sqlite-rows.js';

/**
 * Runs inside the caller's write transaction (BEGIN IMMEDIATE), so the dedupe check and the
 * insert cannot interleave with another writer. With `vector`, the object is stored with it;
 * without, it joins the embedding queue.
 */
export function publishRow(sql: Sql, o: NewObject, live: LiveCriteria, event: NewEvent, vector: ObjectVector | null): { object: StoredObject; created: boolean } {
  const existing = sql(`SELECT o.id FROM objects o WHERE o.dedupe_key = @key AND ${liveSql('o')} ORDER BY o.id LIMIT 1`).get({ key: o.dedupeKey, ...liveParams(live) }) as
    | { id: string }
    | undefined;
  if (existing) return { object: getObjectRow(sql, existing.id, live)!, created: false };
  const object = insertRow(sql, o, live.disputeMinContradictions, vector);
  appendEvent(sql, event);
  return { object, created: true };
}
