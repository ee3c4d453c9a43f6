/**
 * Vectors made while a publish runs, stored with its object: the object is found by meaning
 * as soon as its publish is answered, and the write costs one statement instead of three
 * (the queue row, the worker's claim, its save), which is cheaper (docs/performance.md).
 *
 * The publishes of one turn of the event loop are embedded together, in one call. A call
 * that fails or takes longer than its budget answers null for each of them, and they are left
 * to the durable queue (embed-worker.ts), as every object is when the model cannot answer;
 * after such a miss, publishes leave their objects to the queue for a while without asking,
 * so a model that is down or still loading costs them one wait at most.
 */
import type { ObjectVector } from '../../ports/embed-queue.js';
import type { Embedder } from '../../ports/embedder.js';
import { embeddingText } from './embed-worker.js';
import { embedWithin } from './embed-within.js';

/** After a miss, how long publishes leave their objects to the queue without asking. */
const REST_AFTER_MISS_MS = 30_000;

interface Waiting {
  text: string;
  resolve: (v: ObjectVector | null) => void;
}

export class PublishVectors {
  #waiting: Waiting[] = [];
  #restUntil = 0;

  constructor(
    private readonly embedder: Embedder,
    /** How long a publish waits for its vector. */
    private readonly budgetMs: number,
    /** Counts the vectors made, for /metrics. */
    private readonly metrics?: { embedded(n: number): void },
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The object's vector, or null when the queue should make it. */
  vectorOf(o: { title: string; content: string; topics: readonly string[] }): Promise<ObjectVector | null> {
    if (this.now() < this.#restUntil) return Promise.resolve(null);
    return new Promise((resolve) => {
      if (this.#waiting.push({ text: embeddingText(o), resolve }) === 1) setImmediate(() => void this.#embed());
    });
  }

  async #embed(): Promise<void> {
    const batch = this.#waiting;
    this.#waiting = [];
    const model = this.embedder.model;
    try {
      const vectors = await embedWithin(
        this.embedder,
        batch.map((w) => w.text),
        this.budgetMs,
        'publish budget exceeded',
      );
      if (!vectors) this.#miss();
      else this.metrics?.embedded(vectors.filter(Boolean).length);
      batch.forEach((w, i) => {
        const vector = vectors?.[i];
        w.resolve(vector ? { model, vector } : null);
      });
    } catch {
      // The worker says why when it meets the same failure.
      this.#miss();
      for (const w of batch) w.resolve(null);
    }
  }

  #miss(): void {
    this.#restUntil = this.now() + REST_AFTER_MISS_MS;
  }
}
