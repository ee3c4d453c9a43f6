/** The events table as both SQL stores lay it out; only how topics come back differs. */
import type { BoardEvent, EventKind } from '../domain/events.js';
import type { ObjectType } from '../domain/model.js';

/** The settings key of the seq up to which events were pruned: older Last-Event-IDs get a reset. */
export const PRUNED_THROUGH = 'events_pruned_through';

export interface EventColumns {
  seq: number;
  kind: EventKind;
  object_id: string;
  type: ObjectType;
  thread_id: string;
  at: number;
  /** '' for the commons. */
  space: string;
}

export const toBoardEvent = (r: EventColumns, topics: string[]): BoardEvent => ({
  seq: r.seq,
  kind: r.kind,
  objectId: r.object_id,
  type: r.type,
  topics,
  threadId: r.thread_id,
  at: r.at,
  space: r.space || null,
});
