/**
 * The objects half of the PostgreSQL store. Publishes are the store's (pg-publishes.ts).
 */
import type { LiveCriteria, StoredObject, TrustLevel } from '../../domain/model.js';
import { importRowProblem } from '../../domain/import-rules.js';
import { liveUntil, standingStamp } from '../../domain/state.js';
import { STANDING_COLUMNS, standingFacts, type StandingColumns } from '../object-columns.js';
import { BulkRowError, type BulkObject, type ListQuery, type NewObject, type ObjectStore, type TopicCount } from '../../ports/object-store.js';
import { all, getObjectRow, limitSql, liveParams, liveSql, one, run, SELECT_OBJECT, toObject, writeFacts, type ObjectRow, type Params } from './pg-rows.js';
import { insertRows, type VectorLeg } from './pg-inserts.js';
import type { ObjectVector } from '../../ports/embed-queue.js';
import type { PgSession, PgStatements } from './pg-session.js';
import { NOTIFY_CHANGED } from './pg-changes.js';
import { topicTrustSql, trustSql } from '../sql-fragments.js';

/** Rows re-derived per transaction when the standing rule changes, as in sqlite-objects.ts. */
const RESTATE_BATCH = 5000;

export class PgObjects implements ObjectStore {
  constructor(
    private readonly db: PgSession,
    /** For reads by key, planned once per connection (PgRoot.pipelines('generic')); in a transaction, the transaction. */
    private readonly keyed: PgStatements = db,
    /** Where inserted objects' vectors go (PgStore's, once migrated). */
    private readonly leg: () => VectorLeg = () => null,
  ) {}

  get(id: string, live: LiveCriteria): Promise<StoredObject | null> {
    return getObjectRow(this.keyed, id, live);
  }

  async getMany(ids: readonly string[], live: LiveCriteria): Promise<StoredObject[]> {
    if (ids.length === 0) return [];
    return (await all<ObjectRow>(this.keyed, `SELECT ${SELECT_OBJECT} FROM objects o WHERE o.id = ANY(@ids::text[])`, { ids: [...ids], ...liveParams(live) })).map(toObject);
  }

  async list(q: ListQuery): Promise<StoredObject[]> {
    const where = [liveSql('o')];
    const params: Params = { ...liveParams(q.live) };
    let from = 'objects o';
    if (q.topic !== undefined) {
      from = 'object_topics t JOIN objects o ON o.id = t.object_id';
      where.push('t.topic = @topic');
      params.topic = q.topic;
    }
    if (q.types?.length) {
      where.push('o.type = ANY(@types::text[])');
      params.types = [...q.types];
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
    // A thread's replies are read by their index (parent_id, id) whatever the values: planned once,
    // since planning it for every page had cost thirty times running it.
    const byParent = typeof q.parentId === 'string' && q.topic === undefined && !q.types?.length;
    const rows = await all<ObjectRow>(byParent ? this.keyed : this.db, `SELECT ${SELECT_OBJECT} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY o.id DESC ${limitSql(q.limit)}`, params);
    return rows.map(toObject);
  }

  setHidden(id: string, hidden: boolean, live: LiveCriteria): Promise<StoredObject | null> {
    return this.#update(id, 'hidden = @value', { value: hidden }, live);
  }

  setWithdrawn(id: string, live: LiveCriteria): Promise<StoredObject | null> {
    return this.#update(id, 'withdrawn = true', {}, live);
  }

  setExpiry(id: string, expiresAt: number, live: LiveCriteria): Promise<StoredObject | null> {
    return this.#update(id, 'expires_at = @value', { value: expiresAt }, live);
  }

  setSuperseded(id: string, by: string, live: LiveCriteria): Promise<StoredObject | null> {
    return this.#update(id, 'superseded_by = @value', { value: by }, live, 'o.superseded_by IS NULL AND NOT o.withdrawn');
  }

  setPromoted(id: string, to: string, live: LiveCriteria): Promise<StoredObject | null> {
    return this.#update(id, 'promoted_to = @value', { value: to }, live);
  }

  async insert(o: NewObject, live: LiveCriteria, vector?: ObjectVector | null): Promise<StoredObject> {
    const [inserted] = await this.db.transaction((tx) => insertRows(tx, [{ object: o, live, event: null, vector: vector ?? null }], Date.now(), false, this.leg()));
    return inserted!.object;
  }

  #update(id: string, set: string, params: Params, live: LiveCriteria, onlyIf?: string): Promise<StoredObject | null> {
    return this.db.transaction((tx) => writeFacts(tx, id, set, params, live, '', onlyIf));
  }

  async restate(minContradictions: number): Promise<number> {
    const stamp = standingStamp(minContradictions);
    if ((await one<{ value: string }>(this.db, "SELECT value FROM settings WHERE key = 'standing'"))?.value === stamp) return 0;
    let changed = 0;
    for (let after: number | undefined = 0; after !== undefined; ) {
      // A transaction per batch, its rows locked: the facts read cannot move before the standing is stored.
      after = await this.db.transaction(async (tx) => {
        const rows = await all<StandingColumns<boolean> & { seq: number; id: string; live_until: number }>(
          tx,
          `SELECT seq, id, live_until, ${STANDING_COLUMNS} FROM objects WHERE seq > @after ORDER BY seq LIMIT ${RESTATE_BATCH} FOR UPDATE`,
          { after },
        );
        const moved = rows.map((r) => ({ id: r.id, until: liveUntil(standingFacts(r, Boolean), minContradictions), was: r.live_until })).filter((r) => r.until !== r.was);
        if (moved.length > 0) {
          await run(
            tx,
            `WITH c AS (SELECT * FROM unnest(@ids::text[], @untils::bigint[]) AS c(id, until)),
             o AS (UPDATE objects o SET live_until = c.until FROM c WHERE o.id = c.id)
             UPDATE object_topics t SET live_until = c.until FROM c WHERE t.object_id = c.id`,
            { ids: moved.map((m) => m.id), untils: moved.map((m) => m.until) },
          );
          changed += moved.length;
        }
        return rows.at(-1)?.seq;
      });
    }
    await run(
      this.db,
      `WITH s AS (INSERT INTO settings (key, value) VALUES ('standing', @stamp) ON CONFLICT (key) DO UPDATE SET value = excluded.value)
       SELECT ${changed > 0 ? NOTIFY_CHANGED : '1'}`,
      { stamp },
    );
    return changed;
  }

  async nextExpiry(now: number): Promise<number | null> {
    // Answered by the live_until index whatever the time: planned once.
    return (await one<{ at: number | null }>(this.keyed, 'SELECT min(live_until) AS at FROM objects WHERE live_until > @now', { now }))!.at;
  }

  topTopics(live: LiveCriteria, minCount: number, limit: number): Promise<TopicCount[]> {
    return all<TopicCount>(
      this.db,
      `SELECT t.topic AS slug, count(*)::int AS count FROM object_topics t
       WHERE ${liveSql('t')} GROUP BY t.topic HAVING count(*) >= @min ORDER BY count DESC, slug ASC ${limitSql(limit)}`,
      { ...liveParams(live), min: minCount },
    );
  }

  async topicCounts(live: LiveCriteria, slugs: readonly string[], minTrust?: TrustLevel): Promise<TopicCount[]> {
    if (slugs.length === 0) return [];
    return all<TopicCount>(
      this.db,
      `SELECT t.topic AS slug, count(*)::int AS count FROM object_topics t
       WHERE t.topic = ANY(@slugs::text[]) AND ${liveSql('t')}${topicTrustSql('t', minTrust)} GROUP BY t.topic ORDER BY count DESC, slug ASC`,
      { ...liveParams(live), slugs: [...slugs] },
    );
  }

  coTopics(live: LiveCriteria, slug: string, limit: number, minTrust?: TrustLevel): Promise<TopicCount[]> {
    return all<TopicCount>(
      this.db,
      `WITH co AS (
         SELECT DISTINCT t2.topic FROM object_topics t1
         JOIN object_topics t2 ON t2.object_id = t1.object_id AND t2.topic <> t1.topic
         WHERE t1.topic = @slug AND ${liveSql('t1')}${topicTrustSql('t1', minTrust)})
       SELECT t.topic AS slug, count(*)::int AS count FROM object_topics t
       WHERE t.topic IN (SELECT topic FROM co) AND ${liveSql('t')}${topicTrustSql('t', minTrust)}
       GROUP BY t.topic ORDER BY count DESC, slug ASC ${limitSql(limit)}`,
      { ...liveParams(live), slug },
    );
  }

  async topicsLike(live: LiveCriteria, terms: readonly string[], limit: number): Promise<TopicCount[]> {
    const usable = terms.filter((t) => t.length >= 2).slice(0, 16);
    if (usable.length === 0) return [];
    return all<TopicCount>(
      this.db,
      `SELECT t.topic AS slug, count(*)::int AS count FROM object_topics t
       WHERE t.topic LIKE ANY(@likes::text[]) AND ${liveSql('t')} GROUP BY t.topic ORDER BY count DESC, slug ASC ${limitSql(limit)}`,
      { ...liveParams(live), likes: usable.map((t) => `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) },
    );
  }

  bulkImport(batches: AsyncIterable<readonly BulkObject[]>, live: LiveCriteria): Promise<number> {
    return this.db.transaction(async (tx) => {
      let n = 0;
      for await (const rows of batches) {
        // What the rules need, read once per batch; rows inserted earlier in it count too.
        const ids = rows.flatMap((r) => [r.id, ...(r.parentId === null ? [] : [r.parentId])]);
        const known = new Map((await all<{ id: string; root: boolean }>(tx, 'SELECT id, parent_id IS NULL AS root FROM objects WHERE id = ANY(@ids::text[])', { ids })).map((r) => [r.id, r.root]));
        for (const row of rows) {
          const parentIsRoot = row.parentId === null ? undefined : known.get(row.parentId);
          const problem = importRowProblem(row, { idTaken: known.has(row.id), parent: parentIsRoot === undefined ? null : { isRoot: parentIsRoot } });
          if (problem) throw new BulkRowError(row, problem);
          known.set(row.id, row.parentId === null);
        }
        await insertRows(tx, rows.map((object) => ({ object, live, event: null })), Date.now(), false);
        n += rows.length;
      }
      // Other instances drop what they cached (events carry no imports).
      await tx.query(`SELECT ${NOTIFY_CHANGED}`);
      return n;
    });
  }

  async scan(after: string | null, limit: number, live: LiveCriteria): Promise<StoredObject[]> {
    const rows = await all<ObjectRow>(this.db, `SELECT ${SELECT_OBJECT} FROM objects o WHERE o.id > @after ORDER BY o.id ${limitSql(limit)}`, {
      after: after ?? '',
      ...liveParams(live),
    });
    return rows.map(toObject);
  }
}
