/**
 * The objects half of the SQLite store. Writes open with BEGIN IMMEDIATE, so the dedupe check
 * and the insert cannot interleave with another process's writer.
 */
import type Database from 'better-sqlite3';
import type { LiveCriteria, StoredObject, TrustLevel } from '../../domain/model.js';
import { importRowProblem } from '../../domain/import-rules.js';
import { liveUntil, standingStamp } from '../../domain/state.js';
import { STANDING_COLUMNS, standingFacts, type StandingColumns } from '../object-columns.js';
import { BulkRowError, type BulkObject, type ListQuery, type NewObject, type ObjectStore, type TopicCount } from '../../ports/object-store.js';
import type { ObjectVector } from '../../ports/embed-queue.js';
import { runInTransaction, type WriteGate } from './write-gate.js';
import { topicTrustSql, trustSql } from '../sql-fragments.js';
import { getObjectRow, inList, inWriteTransaction, insertRow, limitSql, liveParams, liveSql, SELECT_OBJECT, toObject, writeFacts, type ObjectRow, type Sql } from './sqlite-rows.js';

/** Rows re-derived per write transaction when the standing rule changes. */
const RESTATE_BATCH = 5000;

export class SqliteObjects implements ObjectStore {
  constructor(
    private readonly db: Database.Database,
    private readonly sql: Sql,
    private readonly gate: WriteGate,
  ) {}

  async get(id: string, live: LiveCriteria): Promise<StoredObject | null> {
    return getObjectRow(this.sql, id, live);
  }

  async getMany(ids: readonly string[], live: LiveCriteria): Promise<StoredObject[]> {
    if (ids.length === 0) return [];
    const l = inList('id', ids);
    return (this.sql(`SELECT ${SELECT_OBJECT} FROM objects o WHERE o.id IN ${l.sql}`).all({ ...l.params, ...liveParams(live) }) as ObjectRow[]).map(toObject);
  }

  async list(q: ListQuery): Promise<StoredObject[]> {
    const where = [liveSql('o')];
    const params: Record<string, unknown> = { ...liveParams(q.live) };
    let from = 'objects o';
    if (q.topic !== undefined) {
      from = 'object_topics t JOIN objects o ON o.id = t.object_id';
      where.push('t.topic = @topic');
      params.topic = q.topic;
    }
    if (q.types?.length) {
      const l = inList('type', q.types);
      where.push(`o.type IN ${l.sql}`);
      Object.assign(params, l.params);
    }
    if (q.parentId === null) where.push('o.parent_id IS NULL');
    else if (q.parentId !== undefined) {
      where.push('o.parent_id = @parentId');
      params.parentId = q.parentId;
    }
    if (q.before !== undefined) {
      where.push('o.id < @before');
      params.before = q.before;
    }
    if (q.minTrust) where.push(trustSql('o', q.minTrust));
    const rows = this.sql(`SELECT ${SELECT_OBJECT} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY o.id DESC ${limitSql(q.limit)}`)
      .all(params) as ObjectRow[];
    return rows.map(toObject);
  }

  async setHidden(id: string, hidden: boolean, live: LiveCriteria): Promise<StoredObject | null> {
    return this.#update(id, 'hidden = @value', { value: hidden ? 1 : 0 }, live);
  }

  async setWithdrawn(id: string, live: LiveCriteria): Promise<StoredObject | null> {
    return this.#update(id, 'withdrawn = 1', {}, live);
  }

  async setExpiry(id: string, expiresAt: number, live: LiveCriteria): Promise<StoredObject | null> {
    return this.#update(id, 'expires_at = @value', { value: expiresAt }, live);
  }

  async setSuperseded(id: string, by: string, live: LiveCriteria): Promise<StoredObject | null> {
    return this.#update(id, 'superseded_by = @value', { value: by }, live, 'superseded_by IS NULL AND withdrawn = 0');
  }

  async setPromoted(id: string, to: string, live: LiveCriteria): Promise<StoredObject | null> {
    return this.#update(id, 'promoted_to = @value', { value: to }, live);
  }

  async insert(o: NewObject, live: LiveCriteria, vector?: ObjectVector | null): Promise<StoredObject> {
    return inWriteTransaction(this.db, () => insertRow(this.sql, o, live.disputeMinContradictions, vector ?? null));
  }

  #update(id: string, set: string, params: Record<string, unknown>, live: LiveCriteria, onlyIf?: string): StoredObject | null {
    const found = inWriteTransaction(this.db, () => writeFacts(this.sql, id, set, params, live.disputeMinContradictions, onlyIf));
    return found ? getObjectRow(this.sql, id, live) : null;
  }

  async restate(minContradictions: number): Promise<number> {
    const stamp = standingStamp(minContradictions);
    const kept = this.sql("SELECT value FROM settings WHERE key = 'standing'").get() as { value: string } | undefined;
    if (kept?.value === stamp) return 0;
    const read = this.sql(`SELECT seq, id, live_until, ${STANDING_COLUMNS} FROM objects WHERE seq > ? ORDER BY seq LIMIT ${RESTATE_BATCH}`);
    const setObject = this.sql('UPDATE objects SET live_until = ? WHERE seq = ?');
    const setTopics = this.sql('UPDATE object_topics SET live_until = ? WHERE object_id = ?');
    let changed = 0;
    // A write transaction per batch: the facts read cannot move before the standing is stored.
    const batch = this.db.transaction((after: number) => {
      const rows = read.all(after) as (StandingColumns<number> & { seq: number; id: string; live_until: number })[];
      for (const r of rows) {
        const until = liveUntil(standingFacts(r, (v) => v === 1), minContradictions);
        if (until === r.live_until) continue;
        setObject.run(until, r.seq);
        setTopics.run(until, r.id);
        changed++;
      }
      return rows.at(-1)?.seq;
    });
    for (let after: number | undefined = 0; after !== undefined; ) after = batch.immediate(after);
    this.sql("INSERT INTO settings (key, value) VALUES ('standing', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(stamp);
    return changed;
  }

  async nextExpiry(now: number): Promise<number | null> {
    return (this.sql('SELECT min(live_until) AS at FROM objects WHERE live_until > ?').get(now) as { at: number | null }).at;
  }

  async topTopics(live: LiveCriteria, minCount: number, limit: number): Promise<TopicCount[]> {
    return this.sql(
      `SELECT t.topic AS slug, count(*) AS count FROM object_topics t
       WHERE ${liveSql('t')} GROUP BY t.topic HAVING count(*) >= @min ORDER BY count DESC, slug ASC ${limitSql(limit)}`,
    ).all({ ...liveParams(live), min: minCount }) as TopicCount[];
  }

  async topicCounts(live: LiveCriteria, slugs: readonly string[], minTrust?: TrustLevel): Promise<TopicCount[]> {
    if (slugs.length === 0) return [];
    const l = inList('s', slugs);
    return this.sql(
      `SELECT t.topic AS slug, count(*) AS count FROM object_topics t
       WHERE t.topic IN ${l.sql} AND ${liveSql('t')}${topicTrustSql('t', minTrust)} GROUP BY t.topic ORDER BY count DESC, slug ASC`,
    ).all({ ...liveParams(live), ...l.params }) as TopicCount[];
  }

  async coTopics(live: LiveCriteria, slug: string, limit: number, minTrust?: TrustLevel): Promise<TopicCount[]> {
    return this.sql(
      `WITH co AS (
         SELECT DISTINCT t2.topic FROM object_topics t1
         JOIN object_topics t2 ON t2.object_id = t1.object_id AND t2.topic <> t1.topic
         WHERE t1.topic = @slug AND ${liveSql('t1')}${topicTrustSql('t1', minTrust)})
       SELECT t.topic AS slug, count(*) AS count FROM object_topics t
       WHERE t.topic IN (SELECT topic FROM co) AND ${liveSql('t')}${topicTrustSql('t', minTrust)}
       GROUP BY t.topic ORDER BY count DESC, slug ASC ${limitSql(limit)}`,
    ).all({ ...liveParams(live), slug }) as TopicCount[];
  }

  async topicsLike(live: LiveCriteria, terms: readonly string[], limit: number): Promise<TopicCount[]> {
    const usable = terms.filter((t) => t.length >= 2).slice(0, 16);
    if (usable.length === 0) return [];
    const params: Record<string, unknown> = { ...liveParams(live) };
    const likes = usable.map((t, i) => {
      params[`like${i}`] = `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      return `t.topic LIKE @like${i} ESCAPE '\\'`;
    });
    return this.sql(
      `SELECT t.topic AS slug, count(*) AS count FROM object_topics t
       WHERE (${likes.join(' OR ')}) AND ${liveSql('t')} GROUP BY t.topic ORDER BY count DESC, slug ASC ${limitSql(limit)}`,
    ).all(params) as TopicCount[];
  }

  bulkImport(batches: AsyncIterable<readonly BulkObject[]>, live: LiveCriteria): Promise<number> {
    const parentOf = this.sql('SELECT parent_id IS NULL AS root FROM objects WHERE id = ?');
    const idExists = this.sql('SELECT 1 FROM objects WHERE id = ?');
    return runInTransaction(this.db, this.gate, async () => {
      let n = 0;
      for await (const rows of batches) {
        for (const row of rows) {
          const parent = row.parentId === null ? undefined : (parentOf.get(row.parentId) as { root: number } | undefined);
          const problem = importRowProblem(row, { idTaken: idExists.get(row.id) !== undefined, parent: parent ? { isRoot: parent.root === 1 } : null });
          if (problem) throw new BulkRowError(row, problem);
          insertRow(this.sql, row, live.disputeMinContradictions);
          n++;
        }
      }
      return n;
    });
  }

  async scan(after: string | null, limit: number, live: LiveCriteria): Promise<StoredObject[]> {
    const rows = this.sql(`SELECT ${SELECT_OBJECT} FROM objects o WHERE o.id > @after ORDER BY o.id ${limitSql(limit)}`).all({
      after: after ?? '',
      ...liveParams(live),
    }) as ObjectRow[];
    return rows.map(toObject);
  }
}
