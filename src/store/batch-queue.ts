/**
 * Work asked for while earlier work runs, taken in batches: what arrives in one turn of the
 * event loop, or while `inFlight` batches are running, goes into the next batch, up to
 * `maxBatch` items. The group commits (SQLite, PostgreSQL) and PostgreSQL's publishes share it.
 */
export interface BatchSettings {
  /** Items one batch takes at most; 1 runs each alone. */
  maxBatch: number;
  /** Batches running at once: each on a connection of its own, or one behind another on one pipelined connection (PgRoot.pipeline). */
  inFlight: number;
  /**
   * Jobs that must be waiting before a batch starts while another runs (default 1: any); with
   * none running, a batch starts with whatever waits. Larger batches behind a running one cost
   * less per job, and the one running answers soon enough.
   */
  minBehind?: number;
}

/** A job's caller, awaiting its value: the batch that takes the job settles it. */
export interface Waiting<V> {
  resolve: (value: V) => void;
  reject: (err: unknown) => void;
}

export class BatchQueue<J> {
  #queue: J[] = [];
  #running = 0;
  #scheduled = false;

  /**
   * `runBatch` settles each of its jobs itself and never rejects. It may call `release` once its
   * statement answered, before it settles its jobs: what waits then goes at once, and the
   * server works on it while this batch's callers are answered.
   * Without, the next batch goes once this one has ended, after a turn of the event loop.
   */
  constructor(
    private readonly settings: BatchSettings,
    private readonly runBatch: (jobs: J[], release: () => void) => Promise<void>,
  ) {}

  add(job: J): void {
    this.#queue.push(job);
    this.#schedule();
  }

  /** Puts jobs of a batch that did not land ahead of every other, to run again in the next one. */
  retry(jobs: readonly J[]): void {
    this.#queue.unshift(...jobs);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || !this.#mayStart()) return;
    this.#scheduled = true;
    // setImmediate runs after the poll phase: requests read in the same turn join the batch.
    setImmediate(() => {
      this.#scheduled = false;
      this.#start();
      this.#schedule();
    });
  }

  /** Whether a batch may start: fewer than `inFlight` running, and jobs waiting (`minBehind` of them where one runs). */
  #mayStart(): boolean {
    if (this.#running >= this.settings.inFlight) return false;
    return this.#queue.length >= (this.#running > 0 ? (this.settings.minBehind ?? 1) : 1);
  }

  /** Runs the next batch now, where one may start (#mayStart). */
  #start(): void {
    if (!this.#mayStart()) return;
    this.#running++;
    let released = false;
    const release = (now: boolean) => {
      if (released) return;
      released = true;
      this.#running--;
      if (now) this.#start();
      this.#schedule();
    };
    void this.runBatch(this.#queue.splice(0, this.settings.maxBatch), () => release(true)).finally(() => release(false));
  }
}
