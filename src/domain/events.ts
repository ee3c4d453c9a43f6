/**
 * The push stream's events (GET /events): `created` when an object is published or a reply
 * posted, `updated` when its counts, state or expiry change. Which subscriber hears which event
 * is decided here, once, for live delivery and replay alike.
 */
import type { ObjectType, StoredObject, TrustLevel } from './model.js';

export type EventKind = 'created' | 'updated';

/** One event as the log keeps it: what happened to which object, with what filters match on. */
export interface BoardEvent {
  /** Increases with every event, across every instance: the SSE `id:`. */
  seq: number;
  kind: EventKind;
  objectId: string;
  type: ObjectType;
  topics: string[];
  /** The thread the object belongs to: its parent's id for a reply, else its own. */
  threadId: string;
  at: number;
  /** The object's space; null for the commons. Only streams of that space are sent it. */
  space: string | null;
}

/** An event to append; one without a space is of the commons. */
export type NewEvent = Omit<BoardEvent, 'seq' | 'space'> & { space?: string | null };

export const eventOf = (kind: EventKind, o: Pick<StoredObject, 'id' | 'type' | 'topics' | 'parentId'> & { space?: string | null }, at: number): NewEvent => ({
  kind,
  objectId: o.id,
  type: o.type,
  topics: [...o.topics],
  threadId: o.parentId ?? o.id,
  at,
  space: o.space ?? null,
});

/** A subscriber's filters: each list, when given, must hold the event's value (any of it, for topics). */
export interface EventFilter {
  topics?: readonly string[];
  threads?: readonly string[];
  types?: readonly ObjectType[];
  /** Only objects whose author shows at least this trust (domain/trust.ts), as the object stands when the event is sent. */
  minTrust?: TrustLevel;
  /** The one space streamed (its members' streams only); null or absent: the commons. Never both. */
  space?: string | null;
}

export function matches(f: EventFilter, e: Pick<NewEvent, 'type' | 'topics' | 'threadId' | 'space'>): boolean {
  if ((f.space ?? null) !== (e.space ?? null)) return false;
  if (f.types?.length && !f.types.includes(e.type)) return false;
  if (f.threads?.length && !f.threads.includes(e.threadId)) return false;
  if (f.topics?.length && !e.topics.some((t) => f.topics!.includes(t))) return false;
  return true;
}
