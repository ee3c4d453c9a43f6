/**
 * Promotion: an admin of a space publishes a copy of one of its live root objects into the public
 * commons. The copy is a new object (new id, no counts) with the same type, title, content,
 * topics, source and author, and nothing that points back to the space; the space object records
 * `promoted_to`. Promoting again answers the same copy.
 */
import { derivedFields } from '../domain/derived.js';
import { DomainError, notFound } from '../domain/errors.js';
import { eventOf } from '../domain/events.js';
import type { Actor, StoredObject } from '../domain/model.js';
import { stateOf } from '../domain/state.js';
import type { Clock, Ids } from '../ports/clock.js';
import type { NewObject } from '../ports/object-store.js';
import type { Store } from '../ports/store.js';
import type { Board } from './board.js';
import { lockScope } from './lock-scope.js';
import { refuseQuarantined } from './quarantine.js';

export interface PromoteDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  board: Board;
}

export class Promotions {
  constructor(private readonly deps: PromoteDeps) {}

  /** The public copy of the space object `id`, and whether this call made it. */
  async promote(id: string, actor: Actor): Promise<{ copy: StoredObject; created: boolean }> {
    const { store, board, ids } = this.deps;
    const o = await board.get(id, actor);
    if (o.space === null) throw new DomainError('space-conflict', `Object ${id} is in the public commons already.`);
    await board.scope(actor, o.space, 'admin');
    if (o.parentId !== null) throw new DomainError('not-a-root-object', `Object ${id} is a reply; promote its root ${o.parentId} instead.`);
    const commons = board.live();
    if (o.promotedTo !== null) {
      const copy = await store.objects.get(o.promotedTo, commons);
      if (copy) return { copy, created: false };
    }
    const state = stateOf(o, commons);
    if (state !== 'live') throw notFound(`Object ${id} is ${state}; only live objects are promoted.`);
    await refuseQuarantined(store, actor);
    const written = { type: o.type, title: o.title, content: o.content, topics: o.topics, sourceUrl: o.sourceUrl, parentId: null, author: o.author, space: null };
    const row: NewObject = { ...written, ...derivedFields(written), id: ids.next(), createdAt: commons.now, expiresAt: o.expiresAt };
    // An identical public object answers instead (dedupe), so a promotion cut short and asked again makes no second copy.
    const published = await store.publish(row, commons, eventOf('created', row, commons.now));
    const spaceLive = board.live(o);
    await store.withTransaction(lockScope(o), async (tx) => {
      const marked = await tx.objects.setPromoted(o.id, published.object.id, spaceLive);
      if (marked) await tx.events.append(eventOf('updated', marked, spaceLive.now));
    });
    return { copy: published.object, created: published.created };
  }
}
