/**
 * The embedded Store on one SQLite file (better-sqlite3). better-sqlite3 is synchronous: one
 * connection, short queries, write transactions opened with BEGIN IMMEDIATE so that the
 * dedupe check and the insert cannot interleave with another process's writer.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import type { ObjectType } from '../../domain/model.js';
import type { LiveCriteria, StoredObject, TrustLevel, VoteKind } from '../../domain/model.js';
import type {
  BulkObject,
  EmbedJob,
  LexicalHit,
  LexicalQuery,
  ListQuery,
  NewObject,
  SemanticHit,
  SemanticQuery,
  Store,
  StoreCapabilities,
  TopicCount,
  VoteInput,
  VoteOutcome,
} from '../../ports/store.js';
import type { IdentityStore } from '../../ports/identity-store.js';
import type { RegistryStore } from '../../ports/registry-store.js';
import { mapBusyErrors } from './busy.js';
import { migrations } from './migrations.js';
import { SqliteIdentity } from './sqlite-identity.js';
import { SqliteRegistry } from './sqlite-registry.js';

interface ObjectRow {
  seq: number;
  id: string;
  type: string;
  title: string;
  content: string;
  topics: string;
  source_url: string | null;
  parent_id: string | null;
  author_id: string | null;
  author_trust: string | null;
  author_domain: string | null;
  created_at: number;
  expires_at: number;
  last_verified_at: number | null;
  verification_count: number;
  contradiction_count: number;
  hidden: number;
  withdrawn: number;
  injection: number;
  reply_count: number;
}

/** SQL for "live" on the table aliased `alias`; parameters @now and @dmin. Mirrors domain/state.ts. */
const liveSql = (alias: string) =>
  `${alias}.hidden = 0 AND ${alias}.withdrawn = 0 AND ${alias}.expires_at > @now ` +
  `AND NOT (${alias}.contradiction_count >= @dmin AND ${alias}.contradiction_count > ${alias}.verification_count)`;

const SELECT_OBJECT = `o.*, (SELECT count(*) FROM objects r WHERE r.parent_id = o.id AND ${liveSql('r')}) AS reply_count`;

const liveParams = (live: LiveCriteria) => ({ now: live.now, dmin: live.disputeMinContradictions });

function toObject(row: ObjectRow): StoredObject {
  return {
    id: row.id,
    type: row.type as ObjectType,
    title: row.title,
    content: row.content,
    topics: JSON.parse(row.topics) as string[],
    sourceUrl: row.source_url,
    parentId: row.parent_id,
    author: row.author_id
      ? { id: row.author_id, trustLevel: row.author_trust as TrustLevel, domain: row.author_domain }
      : null,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastVerifiedAt: row.last_verified_at,
    verificationCount: row.verification_count,
    contradictionCount: row.contradiction_count,
    replyCount: row.reply_count,
    hidden: row.hidden === 1,
    withdrawn: row.withdrawn === 1,
    injectionSuspected: row.injection === 1,
  };
}

/**
 * A LIMIT clause with the count inlined: bound as a parameter, better-sqlite3 passes a double
 * and SQLite runs the same query ten times slower. Counts are validated integers.
 */
const limitSql = (n: number) => `LIMIT ${Math.max(0, Math.trunc(n))}`;

/** Quotes a token for an FTS5 MATCH expression. */
const ftsToken = (t: string) => `"${t.replace(/"/g, '""')}"`;

/** `IN (@p0, @p1, …)` with its parameters. */
function inList(prefix: string, values: readonly string[]): { sql: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  values.forEach((v, i) => (params[`${prefix}${i}`] = v));
  return { sql: `(${values.map((_, i) => `@${prefix}${i}`).join(', ')})`, params };
}

export class SqliteStore implements Store {
  readonly capabilities: StoreCapabilities;
  readonly registry: RegistryStore;
  readonly identity: IdentityStore;
  readonly #db: Database.Database;
  /** Prepared statements by SQL text: preparing costs more than running these short queries. */
  readonly #statements = new Map<string, Database.Statement>();

  /**
   * Opens (creating folders as needed) the file at `path`, or an in-memory database for
   * `:memory:`. The instance returned maps busy-database errors to `unavailable` (busy.ts).
   */
  constructor(path: string, opts: { busyTimeoutMs?: number } = {}) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.#db = new Database(path);
    // busy_timeout first, so the pragmas below already wait instead of failing on a busy file.
    this.#db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(opts.busyTimeoutMs ?? 5000))}`);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = NORMAL');
    this.#db.pragma('foreign_keys = ON');
    this.#db.pragma('temp_store = MEMORY');
    let vectors: StoreCapabilities['vectors'] = { available: true };
    try {
      sqliteVec.load(this.#db);
    } catch (err) {
      vectors = { available: false, reason: `sqlite-vec could not be loaded: ${err instanceof Error ? err.message : String(err)}` };
    }
    this.capabilities = { fullText: 'fts5', vectors };
    this.registry = mapBusyErrors(new SqliteRegistry(this.#db, (text) => this.#sql(text)));
    this.identity = mapBusyErrors(new SqliteIdentity(this.#db, (text) => this.#sql(text)));
    // A constructor may return another object: callers get the wrapped instance.
    return mapBusyErrors(this);
  }

  #sql(sql: string): Database.Statement {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  async migrate(): Promise<void> {
    const db = this.#db;
    db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    const applied = new Set(
      (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
    );
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      db.transaction(() => {
        db.exec(m.sql);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, Date.now());
      }).immediate();
    }
  }

  async ping(): Promise<void> {
    this.#sql('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  #get(id: string, live: LiveCriteria): StoredObject | null {
    const row = this.#sql(`SELECT ${SELECT_OBJECT} FROM objects o WHERE o.id = @id`).get({ id, ...liveParams(live) }) as
      | ObjectRow
      | undefined;
    return row ? toObject(row) : null;
  }

  async insertObject(o: NewObject, live: LiveCriteria): Promise<{ object: StoredObject; created: boolean }> {
    const db = this.#db;
    return db
      .transaction(() => {
        const existing = this.#sql(`SELECT o.id FROM objects o WHERE o.dedupe_key = @key AND ${liveSql('o')} ORDER BY o.id LIMIT 1`)
          .get({ key: o.dedupeKey, ...liveParams(live) }) as { id: string } | undefined;
        if (existing) return { object: this.#get(existing.id, live)!, created: false };
        this.#insertRow(o, false, false);
        return { object: this.#get(o.id, live)!, created: true };
      })
      .immediate();
  }

  /**
   * Copies an object's live-state columns onto its topic rows, which carry them so topic
   * counts read one index instead of joining every object (migration 4).
   */
  #syncTopicRows(id: string): void {
    this.#sql(
      `UPDATE object_topics SET (expires_at, hidden, withdrawn, verification_count, contradiction_count) =
         (SELECT o.expires_at, o.hidden, o.withdrawn, o.verification_count, o.contradiction_count FROM objects o WHERE o.id = @id)
       WHERE object_id = @id`,
    ).run({ id });
  }

  async getObject(id: string, live: LiveCriteria): Promise<StoredObject | null> {
    return this.#get(id, live);
  }

  async listObjects(q: ListQuery): Promise<StoredObject[]> {
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
    const rows = this.#sql(`SELECT ${SELECT_OBJECT} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY o.id DESC ${limitSql(q.limit)}`)
      .all(params) as ObjectRow[];
    return rows.map(toObject);
  }

  async listVotes(objectId: string, q: { limit: number; after?: { updatedAt: number; voterId: string } }) {
    const rows = this.#sql(
      `SELECT kind, note, evidence_url, voter_id, created_at, updated_at FROM votes
       WHERE object_id = @objectId ${q.after ? 'AND (updated_at, voter_id) < (@updatedAt, @voterId)' : ''}
       ORDER BY updated_at DESC, voter_id DESC ${limitSql(q.limit)}`,
    ).all({ objectId, ...(q.after ?? {}) }) as { kind: VoteKind; note: string | null; evidence_url: string | null; voter_id: string; created_at: number; updated_at: number }[];
    return rows.map((r) => ({ kind: r.kind, note: r.note, evidenceUrl: r.evidence_url, voterId: r.voter_id, createdAt: r.created_at, updatedAt: r.updated_at }));
  }

  async castVote(v: VoteInput, live: LiveCriteria): Promise<VoteOutcome | null> {
    const db = this.#db;
    return db
      .transaction((): VoteOutcome | null => {
        const exists = this.#sql('SELECT 1 FROM objects WHERE id = ?').get(v.objectId);
        if (!exists) return null;
        const prior = this.#sql('SELECT kind FROM votes WHERE object_id = ? AND voter_id = ?').get(v.objectId, v.voterId) as
          | { kind: string }
          | undefined;
        if (prior?.kind === v.kind) return { changed: false, object: this.#get(v.objectId, live)! };
        this.#sql(
          `INSERT INTO votes (object_id, voter_id, kind, note, evidence_url, created_at, updated_at)
           VALUES (@objectId, @voterId, @kind, @note, @evidenceUrl, @now, @now)
           ON CONFLICT (object_id, voter_id) DO UPDATE SET kind = excluded.kind, note = excluded.note,
             evidence_url = excluded.evidence_url, updated_at = excluded.updated_at`,
        ).run({ objectId: v.objectId, voterId: v.voterId, kind: v.kind, note: v.note, evidenceUrl: v.evidenceUrl, now: live.now });
        const dv = (v.kind === 'verify' ? 1 : 0) - (prior?.kind === 'verify' ? 1 : 0);
        const dc = (v.kind === 'contradict' ? 1 : 0) - (prior?.kind === 'contradict' ? 1 : 0);
        this.#sql(
          `UPDATE objects SET verification_count = verification_count + @dv, contradiction_count = contradiction_count + @dc,
             last_verified_at = CASE WHEN @verify = 1 THEN @now ELSE last_verified_at END WHERE id = @id`,
        ).run({ dv, dc, verify: v.kind === 'verify' ? 1 : 0, now: live.now, id: v.objectId });
        this.#syncTopicRows(v.objectId);
        return { changed: true, object: this.#get(v.objectId, live)! };
      })
      .immediate();
  }

  async setHidden(id: string, hidden: boolean, live: LiveCriteria): Promise<StoredObject | null> {
    const changes = this.#db
      .transaction(() => {
        const r = this.#sql('UPDATE objects SET hidden = ? WHERE id = ?').run(hidden ? 1 : 0, id);
        this.#syncTopicRows(id);
        return r.changes;
      })
      .immediate();
    return changes === 0 ? null : this.#get(id, live);
  }

  async setWithdrawn(id: string, live: LiveCriteria): Promise<StoredObject | null> {
    const changes = this.#db
      .transaction(() => {
        const r = this.#sql('UPDATE objects SET withdrawn = 1 WHERE id = ?').run(id);
        this.#syncTopicRows(id);
        return r.changes;
      })
      .immediate();
    return changes === 0 ? null : this.#get(id, live);
  }

  async topTopics(live: LiveCriteria, minCount: number, limit: number): Promise<TopicCount[]> {
    return this.#sql(
      `SELECT t.topic AS slug, count(*) AS count FROM object_topics t
       WHERE ${liveSql('t')} GROUP BY t.topic HAVING count(*) >= @min ORDER BY count DESC, slug ASC ${limitSql(limit)}`,
    ).all({ ...liveParams(live), min: minCount }) as TopicCount[];
  }

  async topicCounts(live: LiveCriteria, slugs: readonly string[]): Promise<TopicCount[]> {
    if (slugs.length === 0) return [];
    const l = inList('s', slugs);
    return this.#sql(
      `SELECT t.topic AS slug, count(*) AS count FROM object_topics t
       WHERE t.topic IN ${l.sql} AND ${liveSql('t')} GROUP BY t.topic ORDER BY count DESC, slug ASC`,
    ).all({ ...liveParams(live), ...l.params }) as TopicCount[];
  }

  async coTopics(live: LiveCriteria, slug: string, limit: number): Promise<TopicCount[]> {
    return this.#sql(
      `WITH co AS (
         SELECT DISTINCT t2.topic FROM object_topics t1
         JOIN object_topics t2 ON t2.object_id = t1.object_id AND t2.topic <> t1.topic
         WHERE t1.topic = @slug AND ${liveSql('t1')})
       SELECT t.topic AS slug, count(*) AS count FROM object_topics t
       WHERE t.topic IN (SELECT topic FROM co) AND ${liveSql('t')}
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
    return this.#sql(
      `SELECT t.topic AS slug, count(*) AS count FROM object_topics t
       WHERE (${likes.join(' OR ')}) AND ${liveSql('t')} GROUP BY t.topic ORDER BY count DESC, slug ASC ${limitSql(limit)}`,
    ).all(params) as TopicCount[];
  }

  async searchLexical(q: LexicalQuery): Promise<LexicalHit[]> {
    if (q.terms.length === 0) return [];
    const fts = q.stemmed ? 'objects_fts_stem' : 'objects_fts';
    const tokens = q.terms.map(ftsToken);
    const params: Record<string, unknown> = {
      ...liveParams(q.live),
      any: tokens.join(' OR '),
      all: tokens.join(' AND '),
      phrase: ftsToken(q.terms.join(' ')),
    };
    const where = [`${fts} MATCH ${q.allTerms ? '@all' : '@any'}`, liveSql('o')];
    this.#filters(q, where, params);
    // bm25 is lower-is-better; the column weights rank title over topics over content. The
    // AND and phrase matches are evaluated once each, as sets, for the candidates only.
    const rows = this.#sql(
      `WITH hits AS (
         SELECT o.seq, bm25(${fts}, 4.0, 2.0, 1.0) AS score
         FROM ${fts} JOIN objects o ON o.seq = ${fts}.rowid
         WHERE ${where.join(' AND ')} ORDER BY score ${limitSql(q.limit)})
       SELECT ${SELECT_OBJECT}, -hits.score AS relevance,
         hits.seq IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH @all) AS all_terms,
         hits.seq IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH @phrase) AS phrase
       FROM hits JOIN objects o ON o.seq = hits.seq ORDER BY hits.score`,
    ).all(params) as (ObjectRow & { relevance: number; all_terms: number; phrase: number })[];
    return rows.map((r) => ({ object: toObject(r), relevance: r.relevance, allTerms: r.all_terms === 1, phrase: r.phrase === 1 }));
  }

  /** Inserts one object and its topic rows; the caller holds the write transaction. */
  #insertRow(o: NewObject, hidden: boolean, withdrawn: boolean): void {
    this.#sql(
      `INSERT INTO objects (id, type, title, content, topics, topics_text, source_url, parent_id, author_id, author_trust,
         author_base_trust, author_domain, created_at, expires_at, last_verified_at, verification_count, contradiction_count,
         hidden, withdrawn, injection, dedupe_key)
       VALUES (@id, @type, @title, @content, @topics, @topicsText, @sourceUrl, @parentId, @authorId,
         CASE WHEN EXISTS (SELECT 1 FROM reputable_authors WHERE author_id = @authorId) THEN 'reputable' ELSE @authorTrust END,
         @authorTrust, @authorDomain, @createdAt, @expiresAt, @lastVerifiedAt, @verifications, @contradictions,
         @hidden, @withdrawn, @injection, @dedupeKey)`,
    ).run({
      id: o.id,
      type: o.type,
      title: o.title,
      content: o.content,
      topics: JSON.stringify(o.topics),
      topicsText: o.topics.map((t) => t.replace(/-/g, ' ')).join(' '),
      sourceUrl: o.sourceUrl,
      parentId: o.parentId,
      authorId: o.author?.id ?? null,
      authorTrust: o.author?.trustLevel ?? null,
      authorDomain: o.author?.domain ?? null,
      createdAt: o.createdAt,
      expiresAt: o.expiresAt,
      lastVerifiedAt: o.lastVerifiedAt ?? null,
      verifications: o.verificationCount ?? 0,
      contradictions: o.contradictionCount ?? 0,
      hidden: hidden ? 1 : 0,
      withdrawn: withdrawn ? 1 : 0,
      injection: o.injectionSuspected ? 1 : 0,
      dedupeKey: o.dedupeKey,
    });
    const addTopic = this.#sql(
      `INSERT OR IGNORE INTO object_topics (topic, object_id, expires_at, hidden, withdrawn, verification_count, contradiction_count)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const t of o.topics) {
      addTopic.run(t, o.id, o.expiresAt, hidden ? 1 : 0, withdrawn ? 1 : 0, o.verificationCount ?? 0, o.contradictionCount ?? 0);
    }
  }

  async enqueueMissingVectors(model: string, live: LiveCriteria): Promise<number> {
    this.#sql('UPDATE embed_queue SET next_at = 0, attempts = 0 WHERE next_at > 0 OR attempts > 0').run();
    return this.#sql(
      `INSERT OR IGNORE INTO embed_queue (seq, enqueued_at)
       SELECT o.seq, CAST(unixepoch('subsec') * 1000 AS INTEGER) FROM objects o
       WHERE o.withdrawn = 0 AND o.expires_at > @now
         AND NOT EXISTS (SELECT 1 FROM object_vectors v WHERE v.seq = o.seq AND v.model = @model)`,
    ).run({ now: live.now, model }).changes;
  }

  async claimEmbedJobs(live: LiveCriteria, limit: number): Promise<EmbedJob[]> {
    // Due jobs in index order, so a poll with nothing due stops at once; work stays bounded by
    // the batch even when the queue is large (an embedder down with a long backlog).
    const due = this.#sql(
      `SELECT q.seq, o.id, o.title, o.content, o.topics, q.attempts, (o.withdrawn = 1 OR o.expires_at <= @now) AS dead
       FROM embed_queue q JOIN objects o ON o.seq = q.seq
       WHERE q.next_at <= @now ORDER BY q.next_at, q.seq ${limitSql(limit)}`,
    );
    const drop = this.#sql('DELETE FROM embed_queue WHERE seq = ?');
    for (;;) {
      const rows = due.all({ now: live.now }) as { seq: number; id: string; title: string; content: string; topics: string; attempts: number; dead: number }[];
      // Final states never need a vector; hidden and disputed objects may come back, so they keep theirs.
      for (const r of rows) if (r.dead) drop.run(r.seq);
      const jobs = rows.filter((r) => !r.dead);
      // A batch of only dead jobs says nothing about what lies behind it: read on.
      if (jobs.length > 0 || rows.length < limit) {
        return jobs.map((r) => ({ id: r.id, title: r.title, content: r.content, topics: JSON.parse(r.topics) as string[], attempts: r.attempts }));
      }
    }
  }

  async saveVectors(model: string, items: { id: string; vector: Float32Array | null }[]): Promise<void> {
    const put = this.#sql(
      `INSERT INTO object_vectors (seq, model, embedding) SELECT seq, @model, @embedding FROM objects WHERE id = @id
       ON CONFLICT (seq) DO UPDATE SET model = excluded.model, embedding = excluded.embedding`,
    );
    const drop = this.#sql('DELETE FROM object_vectors WHERE seq = (SELECT seq FROM objects WHERE id = ?)');
    const done = this.#sql('DELETE FROM embed_queue WHERE seq = (SELECT seq FROM objects WHERE id = ?)');
    this.#db
      .transaction(() => {
        for (const { id, vector } of items) {
          if (vector) put.run({ model, id, embedding: Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength) });
          else drop.run(id);
          done.run(id);
        }
      })
      .immediate();
  }

  async failEmbedJobs(ids: readonly string[], error: string, nextAt: number): Promise<void> {
    if (ids.length === 0) return;
    const l = inList('id', ids);
    this.#sql(
      `UPDATE embed_queue SET attempts = attempts + 1, next_at = @nextAt, last_error = @error
       WHERE seq IN (SELECT seq FROM objects WHERE id IN ${l.sql})`,
    ).run({ nextAt, error: error.slice(0, 500), ...l.params });
  }

  async embedQueueOldest(): Promise<number | null> {
    return (this.#sql('SELECT min(enqueued_at) AS at FROM embed_queue').get() as { at: number | null }).at;
  }

  async embedQueueSize(): Promise<number> {
    return (this.#sql('SELECT count(*) AS n FROM embed_queue').get() as { n: number }).n;
  }

  async searchSemantic(q: SemanticQuery): Promise<SemanticHit[]> {
    if (!this.capabilities.vectors.available) return [];
    const params: Record<string, unknown> = {
      ...liveParams(q.live),
      model: q.model,
      q: Buffer.from(q.vector.buffer, q.vector.byteOffset, q.vector.byteLength),
    };
    const where = ['v.model = @model', liveSql('o')];
    this.#filters(q, where, params);
    // Exact distances over the filtered set: correct however selective the filters are.
    const rows = this.#sql(
      `WITH d AS (
         SELECT v.seq, vec_distance_cosine(v.embedding, @q) AS dist FROM object_vectors v JOIN objects o ON o.seq = v.seq
         WHERE ${where.join(' AND ')} ORDER BY dist ${limitSql(q.limit)})
       SELECT ${SELECT_OBJECT}, 1 - d.dist AS similarity FROM d JOIN objects o ON o.seq = d.seq ORDER BY d.dist`,
    ).all(params) as (ObjectRow & { similarity: number })[];
    return rows.map((r) => ({ object: toObject(r), similarity: r.similarity }));
  }

  /** Adds the type and topic filters shared by both search legs. */
  #filters(q: { types?: readonly string[] | undefined; topics?: readonly string[] | undefined }, where: string[], params: Record<string, unknown>): void {
    if (q.types?.length) {
      const l = inList('type', q.types);
      where.push(`o.type IN ${l.sql}`);
      Object.assign(params, l.params);
    }
    if (q.topics?.length) {
      const l = inList('topic', q.topics);
      where.push(`EXISTS (SELECT 1 FROM object_topics t WHERE t.object_id = o.id AND t.topic IN ${l.sql})`);
      Object.assign(params, l.params);
    }
  }

  async bulkImport<T>(fn: (insert: (rows: readonly BulkObject[]) => void) => Promise<T>): Promise<T> {
    const db = this.#db;
    const parentOf = this.#sql('SELECT parent_id IS NULL AS root FROM objects WHERE id = ?');
    const idExists = this.#sql('SELECT 1 FROM objects WHERE id = ?');
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = await fn((rows) => {
        for (const row of rows) {
          if (idExists.get(row.id)) throw new Error(`an object with id ${row.id} already exists`);
          if (row.parentId !== null) {
            const parent = parentOf.get(row.parentId) as { root: number } | undefined;
            if (!parent) throw new Error(`parent ${row.parentId} does not exist (parents must come before their replies)`);
            if (parent.root !== 1) throw new Error(`parent ${row.parentId} is itself a reply`);
          }
          this.#insertRow(row, row.hidden, row.withdrawn);
        }
      });
      db.exec('COMMIT');
      return result;
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw err;
    }
  }

  async scanObjects(after: string | null, limit: number, live: LiveCriteria): Promise<StoredObject[]> {
    const rows = this.#sql(`SELECT ${SELECT_OBJECT} FROM objects o WHERE o.id > @after ORDER BY o.id ${limitSql(limit)}`).all({
      after: after ?? '',
      ...liveParams(live),
    }) as ObjectRow[];
    return rows.map(toObject);
  }

  async getSetting(key: string): Promise<string | null> {
    const row = this.#sql('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value ?? null;
  }

  async initSetting(key: string, value: string): Promise<string> {
    this.#sql('INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)').run(key, value);
    return (await this.getSetting(key))!;
  }
}
