/**
 * The event log half of the Store port: an append-only record of board events, in the order
 * they committed, kept for replay (`Last-Event-ID`) and shared by every instance.
 */
import type { BoardEvent, NewEvent } from '../domain/events.js';

export interface EventLog {
  /** Records an event; inside a transaction, it is visible (and heard) only once that commits. */
  append(e: NewEvent): Promise<void>;
  /**
   * Events after `seq`, oldest first, at most `limit`. Never skips one: an event is returned
   * only once every event before it is committed or gone, so a reader that remembers the last
   * seq it saw misses nothing.
   */
  after(seq: number, limit: number): Promise<BoardEvent[]>;
  /** The newest committed seq (0 for none), and the seq up to which events were pruned (0 for none). */
  bounds(): Promise<{ newest: number; prunedThrough: number }>;
  /** Drops events older than `before` that are not among the newest `keep` (at least 1); answers how many went. */
  prune(before: number, keep: number): Promise<number>;
  /** Calls `onAppend` soon after events commit, from this process or (shared stores) any other. */
  listen(onAppend: () => void): Promise<{ stop(): Promise<void> }>;
}
