/**
 * The embeddings half of the PostgreSQL store: the durable queue (filled on insert, in the
 * inserting transaction) and the vectors. Claims lock queue rows with SKIP LOCKED and lease
 * them, so workers in every instance share the queue without taking one job twice.
 */
import type { LiveCriteria } from '../../domain/model.js';
import type { EmbedJob, EmbedQueue } from '../../ports/embed-queue.js';
import { NOTIFY_CHANGED } from './pg-changes.js';
import { vectorWantedSql } from '../sql-fragments.js';
import { all, limitSql, one, run } from './pg-rows.js';
import type { PgSession } from './pg-session.js';
import { flatVectors, MemoryVectors, notifyVectorsSql, PgvectorLeg, VECTORS_CHANNEL } from './pg-vectors.js';

export class PgEmbedQueue implements EmbedQueue {
  constructor(
    private readonly db: PgSession,
    /** How the semantic leg is answered (PgStore's, once migrated). */
    private readonly leg: () => PgvectorLeg | MemoryVectors | null,
  ) {}

  async enqueueMissing(model: string, live: LiveCriteria): Promise<number> {
    // Leased jobs keep their leases: their workers may still be running.
    await run(this.db, 'UPDATE embed_queue SET next_at = 0, attempts = 0 WHERE next_at > 0 OR attempts > 0');
    return run(
      this.db,
      `INSERT INTO embed_queue (seq, enqueued_at)
       SELECT o.seq, @wall FROM objects o
       WHERE ${vectorWantedSql('o')}
         AND NOT EXISTS (SELECT 1 FROM object_vectors v WHERE v.seq = o.seq AND v.model = @model)
       ON CONFLICT (seq) DO NOTHING`,
      { now: live.now, model, wall: Date.now() },
    );
  }

  claim(live: LiveCriteria, limit: number, leaseMs: number): Promise<EmbedJob[]> {
    return this.db.transaction(async (tx) => {
      for (;;) {
        const rows = await all<{ seq: number; id: string; title: string; content: string; topics: string[]; attempts: number; dead: boolean }>(
          tx,
          `SELECT q.seq, o.id, o.title, o.content, o.topics, q.attempts, NOT ${vectorWantedSql('o')} AS dead
           FROM embed_queue q JOIN objects o ON o.seq = q.seq
           WHERE q.next_at <= @now AND q.lease_until <= @now ORDER BY q.next_at, q.seq ${limitSql(limit)}
           FOR UPDATE OF q SKIP LOCKED`,
          { now: live.now },
        );
        // Objects past vectorWantedUntil (domain/state.ts) leave the queue instead of being embedded.
        const dead = rows.filter((r) => r.dead).map((r) => r.seq);
        if (dead.length) await run(tx, 'DELETE FROM embed_queue WHERE seq = ANY(@seqs::bigint[])', { seqs: dead });
        const jobs = rows.filter((r) => !r.dead);
        if (jobs.length > 0 || rows.length < limit) {
          if (jobs.length) await run(tx, 'UPDATE embed_queue SET lease_until = @until WHERE seq = ANY(@seqs::bigint[])', { until: live.now + leaseMs, seqs: jobs.map((j) => j.seq) });
          return jobs.map((r) => ({ id: r.id, title: r.title, content: r.content, topics: r.topics, attempts: r.attempts }));
        }
      }
    });
  }

  /**
   * One statement for the whole batch: the vectors (bound as one flat array, each row its
   * slice), the queue rows, and (vectors in memory) a NOTIFY naming the batch's objects, which
   * every other instance's copy reads back when it commits; this instance's copy takes the
   * vectors in as they are (MemoryVectors.took). A statement and a NOTIFY per object cost the
   * database a round trip and a plan each, and each listening connection a message.
   */
  async save(model: string, items: { id: string; vector: Float32Array | null }[]): Promise<void> {
    // The last word on an object wins, as it would one statement after another.
    const latest = new Map(items.map((i) => [i.id, i.vector]));
    const puts = [...latest].filter((e): e is [string, Float32Array] => e[1] !== null);
    const { flat, starts, lengths } = flatVectors(puts.map(([, v]) => v));
    const leg = this.leg();
    const pgvector = leg instanceof PgvectorLeg;
    const saved = await all<{ seq: number; id: string }>(
      this.db,
      `WITH puts AS (
           SELECT o.seq, o.id, (@flat::real[])[i.start + 1 : i.start + i.len] AS embedding
           FROM unnest(@puts::text[], @starts::int[], @lengths::int[]) i(id, start, len) JOIN objects o ON o.id = i.id),
         stored AS (
           INSERT INTO object_vectors (seq, model, embedding${pgvector ? ', vec' : ''})
           SELECT p.seq, @model, p.embedding${pgvector ? ', p.embedding::vector' : ''} FROM puts p
           ON CONFLICT (seq) DO UPDATE SET model = excluded.model, embedding = excluded.embedding${pgvector ? ', vec = excluded.vec' : ''}),
         drops AS (SELECT o.seq, o.id FROM objects o WHERE o.id = ANY(@drops::text[])),
         dropped AS (DELETE FROM object_vectors v USING drops d WHERE v.seq = d.seq),
         saved AS (SELECT seq, id FROM puts UNION ALL SELECT seq, id FROM drops),
         done AS (DELETE FROM embed_queue q USING saved s WHERE q.seq = s.seq)${pgvector ? '' : `,
         notified AS MATERIALIZED (${notifyVectorsSql('saved')})`}
       SELECT s.seq, s.id${pgvector ? '' : ', (SELECT count(*) FROM notified) AS notified'}, ${NOTIFY_CHANGED} FROM saved s`,
      {
        puts: puts.map(([id]) => id),
        starts,
        lengths,
        flat,
        model,
        drops: [...latest].filter(([, v]) => v === null).map(([id]) => id),
        ...(pgvector ? {} : { channel: VECTORS_CHANNEL, origin: leg instanceof MemoryVectors ? leg.origin : '' }),
      },
    );
    if (leg instanceof MemoryVectors) leg.took(model, saved.map((r) => ({ seq: Number(r.seq), vector: latest.get(r.id) ?? null })));
  }

  async fail(ids: readonly string[], error: string, nextAt: number): Promise<void> {
    if (ids.length === 0) return;
    await run(
      this.db,
      `UPDATE embed_queue SET attempts = attempts + 1, next_at = @nextAt, lease_until = 0, last_error = @error
       WHERE seq IN (SELECT seq FROM objects WHERE id = ANY(@ids::text[]))`,
      { nextAt, error: error.slice(0, 500), ids: [...ids] },
    );
  }

  async size(): Promise<number> {
    return (await one<{ n: number }>(this.db, 'SELECT count(*)::int AS n FROM embed_queue'))!.n;
  }

  async oldest(): Promise<number | null> {
    return (await one<{ at: number | null }>(this.db, 'SELECT min(enqueued_at) AS at FROM embed_queue'))!.at;
  }
}
