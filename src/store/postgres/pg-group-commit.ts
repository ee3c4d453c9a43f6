/**
 * Group commit on PostgreSQL. The transactions asked for while earlier ones hold the batch
 * connections run one after another in a single BEGIN … COMMIT, and the events they append
 * are written together just before COMMIT (pg-events.ts). The
 * event log's lock, which orders appends from every instance, is then taken once per batch
 * and held for one insert and one WAL flush, instead of once per publish across its own flush,
 * where every connection ended up waiting on that lock.
 *
 * The batches run on connections that plan each statement once (PgRoot.genericPlans): a job's
 * statements must be answered by their keys' indexes whatever the values (see
 * PgIdentity.authorVoteStats).
 *
 * Batches run in lanes, one batch at a time in each, and lanes at once, each on a connection of
 * its own. A transaction names its scope (the author whose objects it locks, or the object when
 * it has no author), and one scope always goes to the same lane: two lanes never lock the same
 * rows, so their batches cannot deadlock each other, while a vote's statements in series no
 * longer wait behind every other vote's.
 *
 * Each caller sees what it would alone. A job reads what the jobs before it wrote, as serial
 * transactions would. When a job throws, the batch rolls back: that job is refused with its
 * error (or, after a deadlock, run again), and the others run again, in order, in the next
 * batch, as withTransaction's contract allows; jobs rarely throw, and no savepoint costs each
 * of them a round trip. Every promise settles only after COMMIT returned, so an acknowledged
 * write is as durable as with one transaction each; when COMMIT fails, all are refused.
 */
import type { NewEvent } from '../../domain/events.js';
import { BatchQueue, type BatchSettings, type Waiting } from '../batch-queue.js';
import { mayRunAgain } from './pg-errors.js';
import { appendEventsStatement } from './pg-events.js';
import type { PgSession } from './pg-session.js';

/** What a job gets: the batch's connection, and where its events wait for the commit. */
export type BatchJob<T> = (tx: PgSession, events: NewEvent[]) => Promise<T>;

interface Job extends Waiting<unknown> {
  fn: BatchJob<unknown>;
  attempts: number;
}

/** A lane for `scope` among `lanes`: FNV-1a, so that a scope's lane is the same on every call. */
export function laneOf(scope: string, lanes: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < scope.length; i++) h = Math.imul(h ^ scope.charCodeAt(i), 0x01000193);
  return (h >>> 0) % lanes;
}

export class PgGroupCommit {
  readonly #lanes: BatchQueue<Job>[];

  /** `settings.inFlight` is the number of lanes. */
  constructor(
    private readonly db: PgSession,
    settings: BatchSettings,
  ) {
    this.#lanes = Array.from({ length: Math.max(1, settings.inFlight) }, () => {
      const lane: BatchQueue<Job> = new BatchQueue({ ...settings, inFlight: 1 }, (jobs, release) => this.#batch(lane, jobs, release));
      return lane;
    });
  }

  /** Runs `fn` in the lane of `scope` (what it locks: an author, or an object without one). */
  run<T>(scope: string, fn: BatchJob<T>): Promise<T> {
    const lane = this.#lanes[laneOf(scope, this.#lanes.length)]!;
    return new Promise<T>((resolve, reject) => lane.add({ fn, resolve: resolve as (v: unknown) => void, reject, attempts: 0 }));
  }

  async #batch(lane: BatchQueue<Job>, jobs: Job[], release: () => void): Promise<void> {
    const values: unknown[] = [];
    let failed: { job: Job; err: unknown } | undefined;
    try {
      const events: NewEvent[] = [];
      await this.db.transaction(
        async (tx) => {
          for (const job of jobs) {
            try {
              values.push(await job.fn(tx, events));
            } catch (err) {
              failed = { job, err };
              throw err;
            }
          }
        },
        // Sent with COMMIT, so that the event log's lock is held for no round trip of its own.
        () => (events.length ? appendEventsStatement(events) : undefined),
      );
    } catch (err) {
      if (!failed) {
        // BEGIN, the events or COMMIT failed: nothing of the batch landed.
        for (const job of jobs) job.reject(err);
        return;
      }
      // One job threw and the batch rolled back: it is refused (or, after a deadlock, run
      // again), and the others run again, in order, in the next batch.
      const { job, err: cause } = failed;
      const again = mayRunAgain(cause, ++job.attempts);
      lane.retry(jobs.filter((j) => j !== job || again));
      if (!again) job.reject(cause);
      return;
    }
    // Committed: the next batch may go while these are answered (as publishes do, pg-publishes.ts).
    release();
    jobs.forEach((job, i) => job.resolve(values[i]));
  }
}
