/** The embeddings half of the SQLite store: the durable queue (filled by insertRow, in the inserting transaction) and the vectors. */
import type Database from 'better-sqlite3';
import type { LiveCriteria } from '../../domain/model.js';
import type { EmbedJob, EmbedQueue } from '../../ports/embed-queue.js';
import { vectorWantedSql } from '../sql-fragments.js';
import { inList, limitSql, logVectorChange, vectorBlob, type Sql } from './sqlite-rows.js';

export class SqliteEmbedQueue implements EmbedQueue {
  constructor(
    private readonly db: Database.Database,
    private readonly sql: Sql,
  ) {}

  async enqueueMissing(model: string, live: LiveCriteria): Promise<number> {
    this.sql('UPDATE embed_queue SET next_at = 0, attempts = 0 WHERE next_at > 0 OR attempts > 0').run();
    return this.sql(
      `INSERT OR IGNORE INTO embed_queue (seq, enqueued_at)
       SELECT o.seq, CAST(unixepoch('subsec') * 1000 AS INTEGER) FROM objects o
       WHERE ${vectorWantedSql('o')}
         AND NOT EXISTS (SELECT 1 FROM object_vectors v WHERE v.seq = o.seq AND v.model = @model)`,
    ).run({ now: live.now, model }).changes;
  }

  async claim(live: LiveCriteria, limit: number, leaseMs: number): Promise<EmbedJob[]> {
    // Due jobs in index order, so a poll with nothing due stops at once; work stays bounded by
    // the batch even when the queue is large (an embedder down with a long backlog).
    const due = this.sql(
      `SELECT q.seq, o.id, o.title, o.content, o.topics, q.attempts, NOT ${vectorWantedSql('o')} AS dead
       FROM embed_queue q JOIN objects o ON o.seq = q.seq
       WHERE q.next_at <= @now AND q.lease_until <= @now ORDER BY q.next_at, q.seq ${limitSql(limit)}`,
    );
    const drop = this.sql('DELETE FROM embed_queue WHERE seq = ?');
    const lease = this.sql('UPDATE embed_queue SET lease_until = @until WHERE seq = @seq');
    // One write transaction: another process's claim waits for it, then sees the leases.
    return this.db
      .transaction((): EmbedJob[] => {
        for (;;) {
          const rows = due.all({ now: live.now }) as { seq: number; id: string; title: string; content: string; topics: string; attempts: number; dead: number }[];
          // Objects past vectorWantedUntil (domain/state.ts) leave the queue instead of being embedded.
          for (const r of rows) if (r.dead) drop.run(r.seq);
          const jobs = rows.filter((r) => !r.dead);
          // A batch of only dead jobs says nothing about what lies behind it: read on.
          if (jobs.length > 0 || rows.length < limit) {
            for (const j of jobs) lease.run({ seq: j.seq, until: live.now + leaseMs });
            return jobs.map((r) => ({ id: r.id, title: r.title, content: r.content, topics: JSON.parse(r.topics) as string[], attempts: r.attempts }));
          }
        }
      })
      .immediate();
  }

  async save(model: string, items: { id: string; vector: Float32Array | null }[]): Promise<void> {
    const seqOf = this.sql('SELECT seq FROM objects WHERE id = ?').pluck();
    const put = this.sql('INSERT INTO object_vectors (seq, model, embedding) VALUES (?, ?, ?) ON CONFLICT (seq) DO UPDATE SET model = excluded.model, embedding = excluded.embedding');
    const drop = this.sql('DELETE FROM object_vectors WHERE seq = ?');
    const done = this.sql('DELETE FROM embed_queue WHERE seq = ?');
    this.db
      .transaction(() => {
        for (const { id, vector } of items) {
          const seq = seqOf.get(id) as number | undefined;
          if (seq === undefined) continue;
          if (vector) {
            put.run(seq, model, vectorBlob(vector));
            logVectorChange(this.sql, seq);
          } else drop.run(seq);
          done.run(seq);
        }
      })
      .immediate();
  }

  async fail(ids: readonly string[], error: string, nextAt: number): Promise<void> {
    if (ids.length === 0) return;
    const l = inList('id', ids);
    this.sql(
      `UPDATE embed_queue SET attempts = attempts + 1, next_at = @nextAt, lease_until = 0, last_error = @error
       WHERE seq IN (SELECT seq FROM objects WHERE id IN ${l.sql})`,
    ).run({ nextAt, error: error.slice(0, 500), ...l.params });
  }

  async size(): Promise<number> {
    return (this.sql('SELECT count(*) AS n FROM embed_queue').get() as { n: number }).n;
  }

  async oldest(): Promise<number | null> {
    return (this.sql('SELECT min(enqueued_at) AS at FROM embed_queue').get() as { at: number | null }).at;
  }
}
