/**
 * A publish that supersedes: the new object and the old one's `superseded` state commit
 * together, with `created` for the new one and `updated` for the old. Who may supersede what is
 * domain/supersede.ts; this applies it against the store, races included.
 */
import { derivedFields } from '../domain/derived.js';
import { eventOf } from '../domain/events.js';
import type { Actor, LiveCriteria, StoredObject } from '../domain/model.js';
import { supersedeRefusal } from '../domain/supersede.js';
import type { NewObject } from '../ports/object-store.js';
import type { Store } from '../ports/store.js';
import { lockScope } from './lock-scope.js';
import type { PublishVectors } from './search/publish-vectors.js';

export interface SupersedeDeps {
  store: Store;
  vectors?: PublishVectors | null | undefined;
}

/** Publishes `row` in place of `oldId`: the new object, or (`created: false`) the one an identical earlier request made. */
export async function publishSuperseding(deps: SupersedeDeps, row: NewObject, oldId: string, actor: Actor, live: LiveCriteria): Promise<{ object: StoredObject; created: boolean }> {
  const { store } = deps;
  const old = inScope(await store.objects.get(oldId, live), row);
  const refused = await settled(store, old, row, oldId, actor, live);
  if (refused) return refused;
  const vector = (await deps.vectors?.vectorOf(row)) ?? null;
  const created = await store.withTransaction(lockScope(old!), async (tx) => {
    // Only while it is neither superseded nor withdrawn: of two racing supersedes, one applies.
    const replaced = await tx.objects.setSuperseded(oldId, row.id, live);
    if (!replaced) return null;
    const object = await tx.objects.insert({ ...row, supersedes: oldId }, live, vector);
    await tx.events.append(eventOf('created', object, live.now));
    await tx.events.append(eventOf('updated', replaced, live.now));
    return object;
  });
  if (created) return { object: created, created: true };
  // It changed since it was read: answered as that change makes it.
  return (await settled(store, inScope(await store.objects.get(oldId, live), row), row, oldId, actor, live)) ?? Promise.reject(new Error(`object ${oldId} could not be superseded, and nothing refuses it`));
}

/**
 * Throws the refusal the old object's standing calls for, or answers the object an identical
 * request already put in its place (a retry); undefined when the supersede may go ahead.
 */
async function settled(store: Store, old: StoredObject | null, row: NewObject, oldId: string, actor: Actor, live: LiveCriteria): Promise<{ object: StoredObject; created: false } | undefined> {
  const refusal = supersedeRefusal(actor, oldId, old, row.type);
  if (!refusal) return undefined;
  if (old?.supersededBy && refusal.code === 'supersede-conflict') {
    const newer = await store.objects.get(old.supersededBy, live);
    if (newer && newer.supersedes === oldId && dedupeKeyOf(newer) === row.dedupeKey) return { object: newer, created: false };
  }
  throw refusal;
}

/** `o` if it is in the scope `row` is written into; an object of another scope is answered as unknown (404). */
const inScope = (o: StoredObject | null, row: NewObject): StoredObject | null => (o && o.space === (row.space ?? null) ? o : null);

const dedupeKeyOf = (o: StoredObject): string =>
  derivedFields({ type: o.type, title: o.title, content: o.content, topics: o.topics, sourceUrl: o.sourceUrl, parentId: o.parentId, author: o.author, space: o.space }).dedupeKey;

/**
 * The newest version of `o`: its superseded_by followed to the end, at most `maxHops` steps
 * (a longer chain answers the last one reached). `o` itself when nothing replaced it.
 */
export async function newestVersion(store: Store, o: StoredObject, live: LiveCriteria, maxHops: number): Promise<StoredObject> {
  let current = o;
  for (let hops = 0; current.supersededBy !== null && hops < maxHops; hops++) {
    const next = await store.objects.get(current.supersededBy, live);
    if (!next) break;
    current = next;
  }
  return current;
}
