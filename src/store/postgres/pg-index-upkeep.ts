/**
 * Keeps the full-text indexes whole between the server's vacuums. A GIN index takes new rows'
 * words into a pending list (fastupdate), merged into the index proper only by a vacuum, an
 * autoanalyze, or once the list outgrows gin_pending_list_limit. Until then every search reads
 * the whole list. So, after writes, this process merges the lists itself
 * (gin_clean_pending_list), off the request path.
 */
import { one } from './pg-rows.js';
import type { PgSession } from './pg-session.js';

/** The indexes with pending lists (pg-migrations.ts). */
const GIN_INDEXES = ['objects_words', 'objects_stems'];
/** Only the index's owner may merge its list: a board without ownership stops trying. */
const NOT_OWNER = '42501';

export interface IndexUpkeepOptions {
  /** How often to look; 0 never merges (left to the server's vacuums). */
  intervalMs: number;
  /** Moves with every write this process makes or hears of (PgChanges). */
  writes: () => number;
  warn?: (message: string, err: unknown) => void;
}

export class PgIndexUpkeep {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | null = null;
  #mergedAt = -1;
  #stopped = false;

  constructor(
    private readonly db: PgSession,
    private readonly opts: IndexUpkeepOptions,
  ) {}

  start(): void {
    if (this.opts.intervalMs <= 0 || this.#timer || this.#stopped) return;
    this.#timer = setInterval(() => void this.run(), this.opts.intervalMs);
    this.#timer.unref();
  }

  /** Merges the pending lists if anything was written since the last merge; answers the pages merged. */
  async run(): Promise<number> {
    const writes = this.opts.writes();
    if (this.#stopped || this.#running || writes === this.#mergedAt) return 0;
    const merge = one<{ pages: number }>(this.db, `SELECT ${GIN_INDEXES.map((i) => `gin_clean_pending_list('${i}'::regclass)`).join(' + ')} AS pages`);
    this.#running = merge;
    try {
      const pages = Number((await merge)?.pages ?? 0);
      this.#mergedAt = writes;
      return pages;
    } catch (err) {
      if ((err as { code?: string }).code === NOT_OWNER) this.#stop();
      this.opts.warn?.('full-text index pending lists not merged', err);
      return 0;
    } finally {
      this.#running = null;
    }
  }

  async stop(): Promise<void> {
    this.#stop();
    await this.#running?.catch(() => undefined);
  }

  #stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }
}
