/**
 * One per process: follows the event log (woken by the store after commits, on every instance,
 * and polled as a fallback) and hands each new event, with its object as it is now, to the
 * subscribers whose filters match. A subscriber that reconnects with the last id it saw gets
 * what it missed from the log first, in order, then the live events, without duplicates.
 */
import type { Logger } from 'pino';
import { matches, type BoardEvent, type EventFilter } from '../domain/events.js';
import { trustAtLeast } from '../domain/trust.js';
import type { LiveCriteria, StoredObject } from '../domain/model.js';
import type { Store } from '../ports/store.js';

/** What a subscriber receives: the event and its object (read once, shared by every subscriber). */
export interface Delivery {
  event: BoardEvent;
  object: StoredObject;
}

export interface SubscriberSink {
  /** Events in seq order, each once. */
  deliver(d: Delivery): void;
  /** The log no longer holds what the subscriber missed (pruned, or an id from elsewhere): re-list. */
  reset(newest: number): void;
  /** The hub is shutting down. */
  end(): void;
}

export interface EventHubOptions {
  store: Store;
  live: () => LiveCriteria;
  log: Logger;
  pollMs: number;
  retainMs: number;
  retainMin: number;
  now: () => number;
}

interface Subscriber {
  filter: EventFilter;
  sink: SubscriberSink;
  /** The last seq this subscriber has been handed or skipped. */
  last: number;
  /** Live deliveries held while its replay runs. */
  held: Delivery[] | null;
}

const BATCH = 500;
const PRUNE_EVERY_MS = 60_000;

export class EventHub {
  readonly #subs = new Set<Subscriber>();
  #cursor = 0;
  /** Events were appended while nobody listened: the cursor is behind, and the next subscriber moves it first. */
  #behind = false;
  #started: Promise<void> | null = null;
  #draining: Promise<void> | null = null;
  #again = false;
  #listening: { stop(): Promise<void> } | null = null;
  #timers: NodeJS.Timeout[] = [];
  #closed = false;

  constructor(private readonly o: EventHubOptions) {}

  /** Starts following the log from its newest event; idempotent. */
  start(): Promise<void> {
    this.#started ??= (async () => {
      this.#cursor = (await this.o.store.events.bounds()).newest;
      this.#listening = await this.o.store.events.listen(() => this.wake());
      const poll = setInterval(() => this.#subs.size > 0 && this.wake(), this.o.pollMs);
      const prune = setInterval(() => void this.#prune(), PRUNE_EVERY_MS);
      for (const t of [poll, prune]) t.unref();
      this.#timers.push(poll, prune);
    })();
    return this.#started;
  }

  get subscribers(): number {
    return this.#subs.size;
  }

  /** Reads what the log has past the cursor; coalesces calls made while a read runs. */
  wake(): void {
    if (this.#draining) {
      this.#again = true;
      return;
    }
    this.#draining = this.#drain()
      .catch((err: unknown) => this.o.log.warn({ err }, 'event log read failed; retrying on the next notice or poll'))
      .finally(() => {
        this.#draining = null;
        if (this.#again) {
          this.#again = false;
          this.wake();
        }
      });
  }

  /**
   * Adds a subscriber. With `lastSeen`, it first gets every matching event after it from the
   * log (or a reset when the log no longer reaches back that far); without, events from now on.
   */
  async subscribe(filter: EventFilter, lastSeen: number | null, sink: SubscriberSink): Promise<() => void> {
    await this.start();
    if (this.#behind) {
      const { newest } = await this.o.store.events.bounds();
      this.#cursor = Math.max(this.#cursor, newest);
      this.#behind = false;
    }
    // In the same turn as the move above: a wake before this finds no subscriber and reads nothing.
    const sub: Subscriber = { filter, sink, last: this.#cursor, held: lastSeen === null ? null : [] };
    this.#subs.add(sub);
    const unsubscribe = () => void this.#subs.delete(sub);
    if (lastSeen === null) return unsubscribe;
    try {
      const { newest, prunedThrough } = await this.o.store.events.bounds();
      if (lastSeen < prunedThrough || lastSeen > newest) {
        sub.last = Math.max(newest, sub.last);
        sink.reset(sub.last);
      } else {
        sub.last = lastSeen;
        for (let read = await this.#read(lastSeen); read.through !== null; read = await this.#read(read.through)) {
          for (const d of read.deliveries) this.#offer(sub, d);
          sub.last = Math.max(sub.last, read.through);
        }
      }
    } catch (err) {
      unsubscribe();
      throw err;
    }
    const held = sub.held ?? [];
    sub.held = null;
    for (const d of held) this.#offer(sub, d);
    return unsubscribe;
  }

  /** Ends every stream and stops following the log; idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#started?.catch(() => undefined);
    for (const t of this.#timers) clearInterval(t);
    for (const s of this.#subs) s.sink.end();
    this.#subs.clear();
    await this.#listening?.stop();
    await this.#draining;
  }

  async #drain(): Promise<void> {
    if (this.#subs.size === 0) {
      // Nobody is listening: nothing is read (it would be a query per commit); the next
      // subscriber moves the cursor first.
      this.#behind = true;
      return;
    }
    for (let read = await this.#read(this.#cursor); read.through !== null; read = await this.#read(this.#cursor)) {
      for (const d of read.deliveries) {
        for (const s of this.#subs) {
          if (s.held) s.held.push(d);
          else this.#offer(s, d);
        }
      }
      this.#cursor = read.through;
    }
  }

  #offer(s: Subscriber, d: Delivery): void {
    if (d.event.seq <= s.last) return;
    s.last = d.event.seq;
    if (matches(s.filter, d.event) && trustAtLeast(d.object.author, s.filter.minTrust)) s.sink.deliver(d);
  }

  /** The next events after `seq`, each with its object as it is now, and the last seq read (null: none). */
  async #read(seq: number): Promise<{ deliveries: Delivery[]; through: number | null }> {
    const events = await this.o.store.events.after(seq, BATCH);
    // One read for the batch's objects, shared by every subscriber.
    const objects = new Map((await this.o.store.objects.getMany([...new Set(events.map((e) => e.objectId))], this.o.live())).map((o) => [o.id, o]));
    const out: Delivery[] = [];
    for (const event of events) {
      const object = objects.get(event.objectId);
      if (object) out.push({ event, object });
    }
    return { deliveries: out, through: events.at(-1)?.seq ?? null };
  }

  async #prune(): Promise<void> {
    try {
      const n = await this.o.store.events.prune(this.o.now() - this.o.retainMs, this.o.retainMin);
      if (n > 0) this.o.log.debug({ events: n }, 'event log pruned');
    } catch (err) {
      this.o.log.warn({ err }, 'event log prune failed');
    }
  }
}
