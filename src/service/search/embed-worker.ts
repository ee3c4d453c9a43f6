/**
 * Drains the durable embedding queue inside the process: claims due jobs in batches, embeds
 * them, stores the vectors, and puts failures back with exponential backoff. The queue holds
 * what publishing did not embed itself (publish-vectors.ts), backfills and imports: such an
 * object is searchable lexically at once, semantically once its batch is done.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../ports/clock.js';
import type { Embedder } from '../../ports/embedder.js';
import type { Store } from '../../ports/store.js';

export interface EmbedWorkerOptions {
  store: Store;
  embedder: Embedder;
  clock: Clock;
  log: Logger;
  batchSize: number;
  disputeMinContradictions: number;
  /** Pause between polls when the queue has nothing due. */
  idleMs?: number;
  /** How long a claimed batch is this worker's; past it, another worker may take the jobs. */
  leaseMs?: number;
  /** How long start() waits for the model to load before serving without it. */
  warmUpMs?: number;
  /** Names the provider in the start-up log (`local`, `openai`). */
  provider?: string;
  /** Counts vectors made and batches failed, for /metrics. */
  metrics?: { embedded(n: number): void; failed(): void };
}

const MAX_BACKOFF_MS = 10 * 60_000;
const DEFAULT_LEASE_MS = 5 * 60_000;

/**
 * The text embedded for an object. The title comes twice: with a mean-pooled model a long
 * content otherwise drowns what the object is about (docs/performance.md).
 */
export function embeddingText(o: { title: string; content: string; topics: readonly string[] }): string {
  return `${o.title}\n${o.title}\n${o.content}\n${o.topics.join(' ').replace(/-/g, ' ')}`;
}

export class EmbedWorker {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  #lastError: string | undefined;

  constructor(private readonly o: EmbedWorkerOptions) {}

  #live() {
    return { now: this.o.clock.now(), disputeMinContradictions: this.o.disputeMinContradictions };
  }

  /**
   * Loads the model (so the first search does not pay for it) and says once what it is; then
   * queues every live object lacking a vector of the current model, makes every queued job due
   * (a restart is when a model may have come back), and polls the queue.
   */
  async start(): Promise<void> {
    await this.#announce();
    const queued = await this.o.store.embeddings.enqueueMissing(this.o.embedder.model, this.#live());
    if (queued > 0) this.o.log.info({ queued, model: this.o.embedder.model }, 'embedding backfill queued');
    this.#schedule(0);
  }

  async #announce(): Promise<void> {
    const { embedder, log } = this.o;
    const about = { provider: this.o.provider, model: embedder.model, from: embedder.source };
    const budget = this.o.warmUpMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      const [vector] = await Promise.race([
        embedder.embed(['agentboard']),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`model not loaded within ${budget} ms`)), budget);
        }),
      ]);
      log.info({ ...about, dimension: vector?.length ?? null }, 'embeddings ready');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.#lastError = message;
      log.warn({ ...about, err: message, remedy: embedder.remedy }, 'embedding model unavailable; search answers lexically until it loads');
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** Embeds one batch of due jobs; returns how many jobs it took. */
  async runOnce(): Promise<number> {
    return (await this.#batch()).taken;
  }

  /** One batch: the jobs taken, and how many of them got a vector (none when the batch failed). */
  async #batch(): Promise<{ taken: number; embedded: number }> {
    const jobs = await this.o.store.embeddings.claim(this.#live(), this.o.batchSize, this.o.leaseMs ?? DEFAULT_LEASE_MS);
    if (jobs.length === 0) return { taken: 0, embedded: 0 };
    try {
      const vectors = await this.o.embedder.embed(jobs.map(embeddingText));
      const items = jobs.map((j, i) => ({ id: j.id, vector: vectors[i] ?? null }));
      await this.o.store.embeddings.save(this.o.embedder.model, items);
      if (this.#lastError) this.o.log.info({ model: this.o.embedder.model }, 'embedding recovered');
      this.#lastError = undefined;
      const embedded = items.filter((x) => x.vector).length;
      this.o.metrics?.embedded(embedded);
      return { taken: jobs.length, embedded };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // Say why once, not once per batch.
      if (message !== this.#lastError) this.o.log.warn({ err: message, model: this.o.embedder.model }, 'embedding failed; will retry with backoff');
      this.#lastError = message;
      const attempts = Math.min(...jobs.map((j) => j.attempts));
      await this.o.store.embeddings.fail(
        jobs.map((j) => j.id),
        message,
        this.o.clock.now() + Math.min(MAX_BACKOFF_MS, 1000 * 2 ** attempts),
      );
      this.o.metrics?.failed();
      return { taken: jobs.length, embedded: 0 };
    }
  }

  /**
   * Runs batches until nothing is due or a batch fails (imports and tests). Reports the jobs
   * taken as it goes; answers how many objects got a vector (a text with nothing the model
   * knows gets none, and a failed batch gives none).
   */
  async drain(onProgress?: (taken: number) => void): Promise<number> {
    let taken = 0;
    let embedded = 0;
    for (let b = await this.#batch(); b.taken > 0; b = await this.#batch()) {
      taken += b.taken;
      embedded += b.embedded;
      onProgress?.(taken);
      if (this.#lastError) break;
    }
    return embedded;
  }

  #schedule(delay: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.runOnce()
        .then((n) => this.#schedule(n > 0 && !this.#lastError ? 0 : (this.o.idleMs ?? 500)))
        .catch((err: unknown) => {
          this.o.log.error({ err }, 'embedding worker failed');
          this.#schedule(this.o.idleMs ?? 500);
        });
    }, delay);
    this.#timer.unref();
  }
}
