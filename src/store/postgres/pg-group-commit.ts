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
import { appendEvents } from './pg-events.js';
import type { PgSession } from './pg-session.js';

/** What a job gets: the batch's connection, and where its events wait for the commit. */
export type BatchJob<T> = (tx: PgSession, events: NewEvent[]) => Promise<T>;

interface Job extends Waiting<unknown> {
  fn: BatchJob<unknown>;
  attempts: number;
}

export class PgGroupCommit {
  readonly #batches: BatchQueue<Job>;

  constructor(
    private readonly db: PgSession,
    settings: BatchSettings,
  ) {
    this.#batches = new BatchQueue(settings, (jobs, release) => this.#batch(jobs, release));
  }

  run<T>(fn: BatchJob<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => this.#batches.add({ fn, resolve: resolve as (v: unknown) => void, reject, attempts: 0 }));
  }

  async #batch(jobs: Job[], release: () => void): Promise<void> {
    const values: unknown[] = [];
    let failed: { job: Job; err: unknown } | undefined;
    try {
      await this.db.transaction(async (tx) => {
        const events: NewEvent[] = [];
        for (const job of jobs) {
          try {
            values.push(await job.fn(tx, events));
          } catch (err) {
            failed = { job, err };
            throw err;
          }
        }
        if (events.length) await appendEvents(tx, events);
      });
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
      this.#batches.retry(jobs.filter((j) => j !== job || again));
      if (!again) job.reject(cause);
      return;
    }
    // Committed: the next batch may go while these are answered (as publishes do, pg-publishes.ts).
    release();
    jobs.forEach((job, i) => job.resolve(values[i]));
  }
}
