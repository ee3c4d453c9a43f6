/** The embeddings half of the Store port: the durable queue of objects waiting for a vector, and the vectors. */
import type { LiveCriteria } from '../domain/model.js';

export interface EmbedJob {
  id: string;
  title: string;
  content: string;
  topics: string[];
  attempts: number;
}

/** An object's vector, made as it was published (search/publish-vectors.ts). */
export interface ObjectVector {
  model: string;
  vector: Float32Array;
}

export interface EmbedQueue {
  /**
   * Queues every live object without a vector of `model` (start-up backfill, model change) and
   * makes every queued job due now, backoff forgotten: a start is when a model may have come back.
   * Answers how many objects were newly queued.
   */
  enqueueMissing(model: string, live: LiveCriteria): Promise<number>;
  /**
   * Claims up to `limit` due jobs of live objects for `leaseMs`, atomically: no other claim, from
   * this process or another, takes them until they are saved or failed or the lease ends (a
   * crashed worker's jobs come back then). Queued objects that are no longer live leave the queue.
   */
  claim(live: LiveCriteria, limit: number, leaseMs: number): Promise<EmbedJob[]>;
  /** Stores vectors (replacing older ones) and takes their objects off the queue; null: nothing to embed. */
  save(model: string, items: { id: string; vector: Float32Array | null }[]): Promise<void>;
  /** Puts failed jobs back, their leases ended, for a retry at `nextAt`. */
  fail(ids: readonly string[], error: string, nextAt: number): Promise<void>;
  size(): Promise<number>;
  /** When the job waiting longest was queued (epoch ms, wall clock: it feeds /metrics), or null when the queue is empty. */
  oldest(): Promise<number | null>;
}
