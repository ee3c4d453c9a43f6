/**
 * Publishes on PostgreSQL, many to a statement (pg-inserts.ts): those asked for while earlier
 * batches run go into the next, which commits on its own in one round trip, where a shared
 * transaction took five.
 *
 * Each caller sees what it would alone: a promise settles once the statement, and so its
 * commit, returned. A batch that fails is run again one publish at a time, so that a row the
 * server refuses (text it cannot store) fails alone, unless the database is out of reach;
 * after a deadlock a publish runs again.
 *
 * The statements go on one connection, pipelined (PgRoot.pipeline): the next batch is sent
 * while the last one runs, so the server starts it the moment the last commits instead of
 * idling while this process reads an answer; more in flight made batches smaller
 * (docs/performance.md). A batch sent behind another sees what that one inserted:
 * each commits before the next starts. Behind one in flight, a batch goes once
 * PG_PUBLISH_PIPELINE_MIN publishes wait (BatchSettings.minBehind): each statement's fixed cost
 * is then shared by more of them.
 */
import type { NewEvent } from '../../domain/events.js';
import type { LiveCriteria } from '../../domain/model.js';
import type { ObjectVector } from '../../ports/embed-queue.js';
import type { NewObject } from '../../ports/object-store.js';
import { BatchQueue, type BatchSettings, type Waiting } from '../batch-queue.js';
import { isUnavailable, mayRunAgain } from './pg-errors.js';
import { insertRows, type Inserted, type RowToInsert, type VectorLeg } from './pg-inserts.js';
import type { PgStatements } from './pg-session.js';

interface Publish extends Waiting<Inserted> {
  row: RowToInsert;
  attempts: number;
}

export class PgPublishes {
  readonly #batches: BatchQueue<Publish>;

  constructor(
    private readonly db: PgStatements,
    settings: BatchSettings,
    /** Where publishes' vectors go (PgStore's, once migrated). */
    private readonly leg: () => VectorLeg,
  ) {
    this.#batches = new BatchQueue(settings, (jobs, release) => this.#batch(jobs, release));
  }

  run(object: NewObject, live: LiveCriteria, event: NewEvent, vector: ObjectVector | null): Promise<Inserted> {
    return new Promise((resolve, reject) => this.#batches.add({ row: { object, live, event, vector }, resolve, reject, attempts: 0 }));
  }

  /** `release` (BatchQueue's) gives its place in flight to the next batch once the statement answered. */
  async #batch(jobs: Publish[], release?: () => void): Promise<void> {
    let inserted: Inserted[];
    try {
      inserted = await insertRows(this.db, jobs.map((j) => j.row), Date.now(), true, this.leg());
    } catch (err) {
      // A row the server refused fails alone: the others run again, one at a time. A database
      // out of reach fails them all at once (one at a time, each would wait for a connection).
      if (jobs.length > 1 && !isUnavailable(err)) {
        for (const job of jobs) await this.#batch([job]);
        return;
      }
      for (const job of jobs) {
        if (mayRunAgain(err, ++job.attempts)) this.#batches.retry([job]);
        else job.reject(err);
      }
      return;
    }
    release?.();
    jobs.forEach((job, i) => job.resolve(inserted[i]!));
  }
}
