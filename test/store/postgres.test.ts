/**
 * The Store contract on the machine's PostgreSQL (a fresh schema per test), where pgvector is
 * not installed: the semantic leg is answered from process memory, kept current by NOTIFY.
 */
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { freshSchema, PG_URL, pgUnavailable, realPgStore, realPgStoreWithSession } from '../helpers/pg.js';
import { PoolSession, withPlans, type PgStatements } from '../../src/store/postgres/pg-session.js';
import { pgMigrations } from '../../src/store/postgres/pg-migrations.js';
import { textVector } from '../../src/store/postgres/pg-inserts.js';
import { EVENTS_LOCK } from '../../src/store/postgres/pg-events.js';
import { PgStore } from '../../src/store/postgres/pg-store.js';
import { expectUpgraded, oldRows } from './standing-upgrade.case.js';
import { runStoreContract } from './store.case.js';
import { publishObject } from '../helpers/publish.js';
import { procStat } from '../../src/bench/cpu.js';
import { eventOf } from '../../src/domain/events.js';
import type { LiveCriteria } from '../../src/domain/model.js';
import type { NewObject } from '../../src/ports/object-store.js';
import type { LexicalHit } from '../../src/ports/search-index.js';

/** A pool on `url` that tells `sent` of each statement it sends (the pool's own and those of its connections that plan once, not the pipelined ones), in order. */
function recordingSession(url: string, sent: (text: string, params: readonly unknown[]) => void): PoolSession {
  const session = new PoolSession({ url, max: 2, connectTimeoutMs: 5000 });
  const query = session.query.bind(session);
  session.query = (text, params) => (sent(text, params ?? []), query(text, params));
  // And the statements of the pool's connections that plan once (a search's query parsing).
  const planned = session.genericPlans();
  const plannedQuery = planned.query.bind(planned);
  planned.query = (text, params) => (sent(text, params ?? []), plannedQuery(text, params));
  return session;
}

/** A store on `url` whose statements' texts are pushed onto `texts`, in the order they are sent. */
function recordingStore(url: string, texts: string[]): PgStore {
  return new PgStore(recordingSession(url, (text) => texts.push(text)));
}

/** An EXPLAIN's lines as one text. */
const planText = (rows: { 'QUERY PLAN': string }[]) => rows.map((r) => r['QUERY PLAN']).join('\n');

/** A statement as sent: its text and its values. */
interface Sent {
  text: string;
  params: readonly unknown[];
}

/** A store on `url` whose reads on the pipelined connections of one kind (planned once: 'generic') are pushed onto `sent`, with their values. */
function plannedReadsStore(url: string, sent: Sent[], plans: 'generic' | 'custom' = 'generic'): { store: PgStore; session: PoolSession } {
  const session = new PoolSession({ url, max: 2, connectTimeoutMs: 5000 });
  const pipelined = session.pipelines(plans);
  const query = pipelined.query.bind(pipelined);
  pipelined.query = (text, params) => (sent.push({ text, params: params ?? [] }), query(text, params));
  return { store: new PgStore(session), session };
}

/**
 * Runs `fn` on a migrated store in a fresh schema, seeded with `count` findings (seedFindings),
 * whose reads planned for their values are pushed onto `sent` (plannedReadsStore); dropped after.
 */
async function withSeededCustomReads(count: number, content: string, fn: (s: { url: string; store: PgStore; session: PoolSession; sent: Sent[] }) => Promise<void>): Promise<void> {
  const { url, drop } = await freshSchema();
  const sent: Sent[] = [];
  const { store, session } = plannedReadsStore(url, sent, 'custom');
  try {
    await store.migrate();
    await seedFindings(session, count, content);
    await fn({ url, store, session, sent });
  } finally {
    await store.close();
    await drop();
  }
}

/** The ids of the 300 objects seeded (seedFindings) with n `from`, `from - step`, …, sorted. */
const newestIds = (step: number, from: number) => Array.from({ length: 300 }, (_, i) => String(from - i * step).padStart(26, '0')).sort();

/** Inserts `count` live findings (seq and id n, from 1) whose content is the SQL expression `content` of n, then analyzes them. */
async function seedFindings(session: PoolSession, count: number, content: string): Promise<void> {
  const folded = ["agentboard_fold('t')", "agentboard_fold('')", `agentboard_fold(${content})`] as const;
  await session.query(`INSERT INTO objects (id, type, title, content, topics, topics_text, created_at, expires_at, dedupe_key, live_until, words, stems)
    SELECT lpad(n::text, 26, '0'), 'finding', 't', ${content}, '{}', '', n, 9e15, 'key' || n, 9e15, ${textVector('simple', folded)}, ${textVector('english', folded)}
    FROM generate_series(1, ${count}) n`);
  await session.query('ANALYZE objects');
}

/** The lexemes (as tsqueries) the last query parse was told not to count: their counts were known, or estimated. */
function notCountedByLastParse(sent: readonly Sent[]): string[] {
  const parse = sent.filter((p) => p.text.includes('AS term_lexemes')).at(-1)!;
  return parse.params.find((v) => Array.isArray(v) && v.every((l) => typeof l === 'string' && l.startsWith("'"))) as string[];
}

/** The plan of `sent` on a connection set as those of `plans` are: by default as those that plan once, made without its values. */
async function planOf(url: string, sent: Sent, plans: 'generic' | 'custom' = 'generic'): Promise<string> {
  const admin = new pg.Client({ connectionString: withPlans(url, plans) });
  await admin.connect();
  try {
    const literal = (v: unknown): string =>
      typeof v === 'number' ? String(v) : Array.isArray(v) ? admin.escapeLiteral(`{${v.join(',')}}`) : admin.escapeLiteral(String(v));
    await admin.query(`PREPARE sent AS ${sent.text}`);
    return planText((await admin.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE sent(${sent.params.map(literal).join(', ')})`)).rows);
  } finally {
    await admin.end();
  }
}

const unavailable = await pgUnavailable();
if (unavailable) console.warn(`skipping the PostgreSQL store suite: ${unavailable}`);

describe.skipIf(unavailable !== null)('postgres (127.0.0.1:5432)', () => {
  runStoreContract({ name: 'postgres', makeStore: () => realPgStore() });

  it('migrates once when ten stores start at once on one schema', async () => {
    const { url, drop } = await freshSchema();
    const stores = Array.from({ length: 10 }, () => new PgStore(new PoolSession({ url, max: 2, connectTimeoutMs: 5000 })));
    try {
      await Promise.all(stores.map((s) => s.migrate()));
      const { rows } = await new PoolSession({ url, max: 1, connectTimeoutMs: 5000 }).query<{ n: number }>('SELECT count(*) AS n FROM schema_migrations');
      expect(rows[0]!.n).toBeGreaterThan(0);
      expect(stores.every((s) => s.capabilities.vectors.available && s.capabilities.vectors.answeredBy === 'process-memory')).toBe(true);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await drop();
    }
  });

  it('checks no foreign key on what each publish writes besides its object (migration 9)', async () => {
    const { store, url, dispose } = await realPgStore();
    try {
      await store.migrate();
      const session = new PoolSession({ url, max: 1, connectTimeoutMs: 5000 });
      const { rows } = await session
        .query<{ name: string }>(`SELECT c.conrelid::regclass::text AS name FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`)
        .finally(() => session.close());
      // The registry's tools and events still cascade from their server; vectors and jobs are the board's own.
      expect(rows.map((r) => r.name).filter((n) => /object_vectors|embed_queue/.test(n))).toEqual([]);
      expect(rows.length).toBeGreaterThan(0);
    } finally {
      await dispose();
    }
  });

  it('writes a publish batch’s topic rows, vectors and jobs before it waits for the event log’s lock', async () => {
    const { store, url, dispose } = await realPgStore();
    const holder = new pg.Client({ connectionString: url });
    const probe = new pg.Client({ connectionString: url });
    try {
      await store.migrate();
      await Promise.all([holder.connect(), probe.connect()]);
      await holder.query('BEGIN');
      await holder.query(`SELECT ${EVENTS_LOCK}`);
      const live = { now: Date.now(), disputeMinContradictions: 2 };
      const row = (id: string): NewObject => ({ id, type: 'finding', title: id, content: id, topics: ['t'], sourceUrl: null, parentId: null, author: null, createdAt: live.now, expiresAt: live.now + 60_000, injectionSuspected: false, dedupeKey: id });
      const ids = ['01J00000000000000000000001', '01J00000000000000000000002'];
      // One with its vector, one left to the queue: one statement, blocked at the lock.
      const published = Promise.all([
        store.publish(row(ids[0]!), live, eventOf('created', row(ids[0]!), live.now), { model: 'm', vector: Float32Array.of(1, 0) }),
        publishObject(store, row(ids[1]!), live),
      ]);
      for (let waited = 0; ; waited += 20) {
        // This schema's lock (other suites' may be waited for meanwhile): its key, as pg_locks splits it.
        const { rows } = await probe.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
             AND (classid::bigint << 32 | objid::bigint) = hashtextextended('agentboard-events:' || current_schema(), 0)`,
        );
        if (rows.length) break;
        if (waited > 5000) throw new Error('the publish never waited for the lock');
        await new Promise((r) => setTimeout(r, 20));
      }
      // A row the waiting statement has written holds its key: inserting the same key waits for it.
      const taken = async (sql: string, params: unknown[]) => {
        await probe.query('BEGIN');
        try {
          await probe.query(`SET LOCAL lock_timeout = '200ms'`);
          await probe.query(sql, params);
          return false;
        } catch (err) {
          if ((err as { code?: string }).code === '55P03') return true;
          throw err;
        } finally {
          await probe.query('ROLLBACK');
        }
      };
      for (const id of ids) expect(await taken('INSERT INTO object_topics (topic, object_id, live_until) VALUES ($1, $2, 0)', ['t', id])).toBe(true);
      // A fresh schema: the two objects are seqs 1 and 2, one with a vector, the other queued.
      const seqsTaken = async (sql: string) => [await taken(sql, [1]), await taken(sql, [2])];
      const vectors = await seqsTaken(`INSERT INTO object_vectors (seq, model, embedding) VALUES ($1, 'm', '{1}')`);
      const jobs = await seqsTaken('INSERT INTO embed_queue (seq, enqueued_at) VALUES ($1, 0)');
      expect(vectors.filter(Boolean)).toHaveLength(1);
      expect(jobs.filter(Boolean)).toHaveLength(1);
      expect(vectors.map((v, i) => v || jobs[i])).toEqual([true, true]);
      await holder.query('COMMIT');
      expect((await published).map((p) => p.created)).toEqual([true, true]);
    } finally {
      await holder.end().catch(() => undefined);
      await probe.end().catch(() => undefined);
      await dispose();
    }
  });

  it('keeps every instance’s in-memory vectors current through NOTIFY', async () => {
    const { store: a, url, dispose } = await realPgStore();
    const b = new PgStore(new PoolSession({ url, max: 2, connectTimeoutMs: 5000 }));
    try {
      await a.migrate();
      await b.migrate();
      const live = { now: Date.now(), disputeMinContradictions: 2 };
      const row = (id: string) => ({ id, type: 'finding' as const, title: id, content: id, topics: ['x'], sourceUrl: null, parentId: null, author: null, createdAt: live.now, expiresAt: live.now + 60_000, injectionSuspected: false, dedupeKey: id });
      await publishObject(a, row('01J00000000000000000000001'), live);
      const q = { live, vector: Float32Array.of(1, 0), model: 'm', limit: 5 };
      // b loads its index (one vector), then a saves another: b hears of it.
      await a.embeddings.save('m', [{ id: '01J00000000000000000000001', vector: Float32Array.of(1, 0) }]);
      expect((await b.search.semantic(q)).map((h) => h.id)).toEqual(['01J00000000000000000000001']);
      await publishObject(a, row('01J00000000000000000000002'), live);
      await a.embeddings.save('m', [{ id: '01J00000000000000000000002', vector: Float32Array.of(0.8, 0.6) }]);
      await expect.poll(async () => (await b.search.semantic(q)).map((h) => h.id), { timeout: 5000 }).toEqual(['01J00000000000000000000001', '01J00000000000000000000002']);
      // A vector alone (no other write) moves b's change mark too, or b's cached answers would keep the old nearest.
      const before = await b.changeMark();
      await a.embeddings.save('m', [{ id: '01J00000000000000000000001', vector: null }]);
      await expect.poll(async () => (await b.search.semantic(q)).map((h) => h.id), { timeout: 5000 }).toEqual(['01J00000000000000000000002']);
      expect(await b.changeMark()).not.toBe(before);
    } finally {
      await b.close();
      await dispose();
    }
  });

  it('folds every text as the first fold did, through its short way for ASCII and General Punctuation too', async () => {
    const { url, drop } = await freshSchema();
    const store = new PgStore(new PoolSession({ url, max: 1, connectTimeoutMs: 5000 }));
    const session = new PoolSession({ url, max: 1, connectTimeoutMs: 5000 });
    try {
      await store.migrate();
      const chars = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));
      const texts = [
        // Each code point of the short way's ranges alone, between letters, and all together.
        ...[...chars(1, 0x7f), ...chars(0x2000, 0x206f)].flatMap((c) => [c, `a${c}b`, `x ${c}${c} 9`]),
        chars(1, 0x7f).join(''),
        chars(0x2000, 0x206f).join(''),
        // Texts the long way folds: accents, compatibility forms, other scripts.
        'Café crème', 'ﬁle ① ｆｕｌｌ', 'naïve…', 'Ünïcödé — “quoted” ERR_REQUIRE_ESM 127.0.0.1', '東京 ß İ',
      ];
      const first = String.raw`regexp_replace(regexp_replace(normalize(t, NFKD), '[̀-ͯ]', '', 'g'), '[^[:alnum:]]+', ' ', 'g')`;
      const { rows } = await session.query<{ t: string; now: string; then: string }>(
        `SELECT t, agentboard_fold(t) AS now, ${first} AS then FROM unnest($1::text[]) AS u(t)`,
        [texts],
      );
      expect(rows).toHaveLength(texts.length);
      expect(rows.filter((r) => r.now !== r.then)).toEqual([]);
      // Both ways were taken.
      expect(rows.find((r) => r.t === 'Café crème')!.now).toBe('Cafe creme');
      expect(rows.find((r) => r.t === 'a…b')!.now).toBe('a b');
    } finally {
      await session.close();
      await store.close();
      await drop();
    }
  });

  /**
   * Two instances on a fresh schema, `a` recording its statements: `readBack()` counts those
   * that read vectors back by seq, as a copy does for another instance's writes.
   */
  async function twoInstances(fn: (s: { a: PgStore; b: PgStore; live: LiveCriteria; id: (i: number) => string; row: (i: number) => NewObject; readBack: () => number }) => Promise<void>) {
    const { url, drop } = await freshSchema();
    const texts: string[] = [];
    const a = recordingStore(url, texts);
    const b = new PgStore(new PoolSession({ url, max: 2, connectTimeoutMs: 5000 }));
    try {
      await a.migrate();
      await b.migrate();
      const live = { now: Date.now(), disputeMinContradictions: 2 };
      const id = (i: number) => `01J${String(i).padStart(23, '0')}`;
      const row = (i: number) => ({ id: id(i), type: 'finding' as const, title: 't', content: `c ${i}`, topics: ['x'], sourceUrl: null, parentId: null, author: null, createdAt: live.now, expiresAt: live.now + 60_000, injectionSuspected: false, dedupeKey: id(i) });
      await fn({ a, b, live, id, row, readBack: () => texts.filter((t) => t.includes('FROM object_vectors WHERE seq = ANY')).length });
    } finally {
      await b.close();
      await a.close();
      await drop();
    }
  }

  it('takes its own saved vectors into its copy without reading them back, and every other instance hears each of a batch too big for one NOTIFY', () =>
    twoInstances(async ({ a, b, live, id, row, readBack }) => {
      const n = 700;
      for (let i = 0; i < n; i++) await publishObject(a, row(i), live);
      const q = { live, vector: Float32Array.of(1, 0), model: 'm', limit: 1000 };
      await a.embeddings.save('m', [{ id: id(0), vector: Float32Array.of(1, 0) }]);
      // Both load their copies (one vector each).
      expect((await a.search.semantic(q)).map((h) => h.id)).toEqual([id(0)]);
      expect((await b.search.semantic(q)).map((h) => h.id)).toEqual([id(0)]);
      const before = readBack();
      const markBefore = await a.changeMark();
      // One save of 700 vectors: its payloads name 300 seqs at most.
      await a.embeddings.save('m', Array.from({ length: n - 1 }, (_, k) => ({ id: id(k + 1), vector: Float32Array.of(0.6, 0.8) })));
      expect(await a.search.semantic(q)).toHaveLength(n);
      expect(await a.changeMark()).not.toBe(markBefore);
      await expect.poll(async () => (await b.search.semantic(q)).length, { timeout: 5000 }).toBe(n);
      // A deleted vector leaves the copy as soon as the save returns.
      await a.embeddings.save('m', [{ id: id(0), vector: null }]);
      expect((await a.search.semantic(q)).map((h) => h.id)).not.toContain(id(0));
      await expect.poll(async () => (await b.search.semantic(q)).length, { timeout: 5000 }).toBe(n - 1);
      // Its own payloads (heard too) were passed over: a read nothing back.
      await new Promise((r) => setTimeout(r, 200));
      expect(readBack()).toBe(before);
    }));

  it('takes the vectors published with objects into its own copy without reading them back, and every other instance hears them', () =>
    twoInstances(async ({ a, b, live, id, row, readBack }) => {
      const publish = (i: number, ...xs: number[]) => a.publish(row(i), live, eventOf('created', row(i), live.now), { model: 'm', vector: Float32Array.from(xs) });
      await publish(0, 1, 0);
      const q = { live, vector: Float32Array.of(1, 0), model: 'm', limit: 100 };
      // Both load their copies (one vector each).
      expect((await a.search.semantic(q)).map((h) => h.id)).toEqual([id(0)]);
      expect((await b.search.semantic(q)).map((h) => h.id)).toEqual([id(0)]);
      const before = readBack();
      // Published together: one statement, its vectors in one payload.
      await Promise.all(Array.from({ length: 20 }, (_, k) => publish(k + 1, 0.6, 0.8)));
      expect(await a.search.semantic(q)).toHaveLength(21);
      await expect.poll(async () => (await b.search.semantic(q)).length, { timeout: 5000 }).toBe(21);
      expect(await a.embeddings.size()).toBe(0);
      // Its own payloads (heard too) were passed over: a read nothing back.
      await new Promise((r) => setTimeout(r, 200));
      expect(readBack()).toBe(before);
    }));

  it('answers the object another instance committed under the dedupe lock while this insert waited for it', async () => {
    const { store, url, dispose } = await realPgStore();
    const other = new pg.Client({ connectionString: url });
    try {
      await store.migrate();
      await other.connect();
      const live = { now: Date.now(), disputeMinContradictions: 2 };
      // Another instance's publish of the same key: it holds the lock while this insert begins.
      await other.query('BEGIN');
      await other.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', ['dedupe:raced']);
      const waiting = publishObject(store, 
        { id: '01J00000000000000000000002', type: 'finding', title: 't', content: 'c', topics: ['x'], sourceUrl: null, parentId: null, author: null, createdAt: live.now, expiresAt: live.now + 60_000, injectionSuspected: false, dedupeKey: 'raced' },
        live,
      );
      // Once the insert's statement waits on the lock, its snapshot is older than the other's commit.
      await expect.poll(async () => (await other.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0].n).toBe(1);
      await other.query(
        `INSERT INTO objects (id, type, title, content, topics, topics_text, created_at, expires_at, dedupe_key, live_until, words, stems)
         VALUES ('01J00000000000000000000001', 'finding', 't', 'c', ARRAY['x'], 'x', $1, $2, 'raced', $2, '', '')`,
        [live.now, live.now + 60_000],
      );
      await other.query('COMMIT');
      const r = await waiting;
      expect(r.created).toBe(false);
      expect(r.object.id).toBe('01J00000000000000000000001');
    } finally {
      await other.end();
      await dispose();
    }
  });

  it('stores the full-text vectors the first schema generated, for publishes and imports alike, and refuses a row without them', async () => {
    const { store, session, dispose } = await realPgStoreWithSession();
    try {
      await store.migrate();
      const live: LiveCriteria = { now: Date.now(), disputeMinContradictions: 2 };
      const texts = [
        ['Café… ERR_REQUIRE_ESM v1.2.3', 'naïve ﬁle at x.y@z.com, see http://a.b/c?d=1 — “quoted” ½ ² 😀\nsecond line', ['connection-pool', 'node']],
        ['ÀÉÎ ñ ß Ω ﬀ', 'Ǆ tab\there; the pools were exhausting', ['x']],
        ['t', 'x', ['y']],
      ] as const;
      for (const [i, [title, content, topics]] of texts.entries()) {
        const id = `01J0000000000000000000000${i}`;
        const o: NewObject = { id, type: 'finding', title, content, topics: [...topics], sourceUrl: null, parentId: null, author: null, createdAt: live.now, expiresAt: live.now + 60_000, injectionSuspected: false, dedupeKey: id };
        await publishObject(store, o, live);
      }
      async function* imported() {
        yield [{ id: '01J00000000000000000000009', type: 'finding' as const, title: 'Imported: déjà vu', content: 'an import’s text, folded alike', topics: ['a-b'], sourceUrl: null, parentId: null, author: null, createdAt: live.now, expiresAt: live.now + 60_000, injectionSuspected: false, dedupeKey: 'imported', verificationCount: 0, contradictionCount: 0, lastVerifiedAt: null, hidden: false, withdrawn: false }];
      }
      expect(await store.objects.bulkImport(imported(), live)).toBe(1);
      // Migration 1's generated columns, written out as they were.
      const generated = (config: string) =>
        `setweight(to_tsvector('${config}', agentboard_fold(title)), 'A') || setweight(to_tsvector('${config}', agentboard_fold(topics_text)), 'B') || setweight(to_tsvector('${config}', agentboard_fold(content)), 'C')`;
      const { rows } = await session.query<{ n: number; same: number; stemmed: boolean }>(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE words = ${generated('simple')} AND stems = ${generated('english')})::int AS same,
           bool_and(stems @@ to_tsquery('english', 'pool')) FILTER (WHERE id = '01J00000000000000000000001') AS stemmed FROM objects`,
      );
      expect(rows[0]).toEqual({ n: 4, same: 4, stemmed: true });
      await expect(
        session.query(`INSERT INTO objects (id, type, title, content, topics, topics_text, created_at, expires_at, dedupe_key, live_until)
          VALUES ('x', 'finding', 't', 'c', '{}', '', 1, 2, 'k', 2)`),
      ).rejects.toThrow(/null value in column "(words|stems)"/);
    } finally {
      await dispose();
    }
  });

  it('upgrades a board made before stored standing with its live set, topic counts and shown trust intact', async () => {
    const { url, drop } = await freshSchema();
    const old = new PoolSession({ url, max: 1, connectTimeoutMs: 5000 });
    const now = Date.now();
    const store = new PgStore(new PoolSession({ url, max: 2, connectTimeoutMs: 5000 }));
    try {
      // The schema and rows as version 1 left them: trust copied onto objects, live facts on topic rows.
      await old.query('CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)');
      await old.query(pgMigrations.find((m) => m.version === 1)!.sql);
      await old.query('INSERT INTO schema_migrations VALUES (1, $1, $2)', ['v1', now]);
      for (const { id, author, trust, base, v, c, hidden, expires } of oldRows(now)) {
        await old.query(
          `INSERT INTO objects (id, type, title, content, topics, topics_text, author_id, author_trust, author_base_trust, created_at, expires_at,
             verification_count, contradiction_count, hidden, withdrawn, injection, dedupe_key)
           VALUES ($1, 'finding', 't', $1, ARRAY['x'], 'x', $2, $3, $4, $5, $6, $7, $8, $9, false, false, $1)`,
          [id, author, trust, base, now, expires, v, c, hidden],
        );
        await old.query('INSERT INTO object_topics VALUES ($1, $2, $3, $4, false, $5, $6)', ['x', id, expires, hidden, v, c]);
      }
      await old.query('INSERT INTO reputable_authors VALUES ($1, $2)', ['star', now]);
      await expectUpgraded(store, now);
    } finally {
      await store.close();
      await old.close();
      await drop();
    }
  });

  it("plans once what no plan can depend on: a search's query parsing, a thread's replies and the next expiry", async () => {
    const { url, drop } = await freshSchema();
    const planned: Sent[] = [];
    const { store, session } = plannedReadsStore(url, planned);
    const pooled: string[] = [];
    const onceOnPool: string[] = [];
    const query = session.query.bind(session);
    session.query = (text, params) => (pooled.push(text), query(text, params));
    const generic = session.genericPlans();
    const genericQuery = generic.query.bind(generic);
    generic.query = (text, params) => (onceOnPool.push(text), genericQuery(text, params));
    try {
      await store.migrate();
      const live = { now: Date.now(), disputeMinContradictions: 2 };
      const object = (id: string, parentId: string | null): NewObject => ({ id, type: parentId ? 'response' : 'finding', title: 'x', content: 'pool exhausted', topics: ['x'], sourceUrl: null, parentId, author: null, createdAt: live.now, expiresAt: live.now + 60_000, injectionSuspected: false, dedupeKey: id });
      await publishObject(store, object('01J00000000000000000000001', null), live);
      await publishObject(store, object('01J00000000000000000000002', '01J00000000000000000000001'), live);
      [pooled, onceOnPool, planned].forEach((l) => l.splice(0));
      await store.search.lexical({ live, terms: ['pool', 'exhausted'], limit: 10 });
      expect((await store.objects.list({ live, parentId: '01J00000000000000000000001', limit: 10 })).map((o) => o.id)).toEqual(['01J00000000000000000000002']);
      expect(await store.objects.nextExpiry(live.now)).toBe(live.now + 60_000);
      expect(onceOnPool.filter((t) => t.includes('AS term_lexemes'))).toHaveLength(1);
      expect(planned.filter((p) => /o\.parent_id = \$\d/.test(p.text) || p.text.includes('min(live_until)'))).toHaveLength(2);
      expect(pooled.filter((t) => t.includes('AS term_lexemes') || t.includes('parent_id =') || t.includes('min(live_until)'))).toEqual([]);
    } finally {
      await store.close();
      await drop();
    }
  });

  it('builds a query of words it has parsed before without a statement, ranked and marked as the parse would', async () => {
    const { url, drop } = await freshSchema();
    const texts: string[] = [];
    const open = () => recordingStore(url, texts);
    const learned = open();
    try {
      await learned.migrate();
      const live = { now: Date.now(), disputeMinContradictions: 2 };
      const contents = ['the pool exhausted again', 'exhausted: the pool', 'a pool party', 'pools exhausting', "o'brien's pool"];
      for (const [i, content] of contents.entries()) {
        const id = `01J0000000000000000000000${i}`;
        await publishObject(learned, { id, type: 'finding', title: 'x', content, topics: ['x'], sourceUrl: null, parentId: null, author: null, createdAt: live.now, expiresAt: live.now + 60_000, injectionSuspected: false, dedupeKey: id }, live);
      }
      const parses = () => texts.filter((t) => t.includes('phraseto_tsquery')).length;
      for (const stemmed of [false, true]) {
        // Each word parsed once, in other queries; then queries of those words in new orders and sets.
        await learned.search.lexical({ live, terms: ['pool', 'again', 'exhausted', "o'brien"], limit: 10, stemmed });
        // A word of two lexemes (o'brien), or a stop word where stems are matched (again), is parsed
        // with each new query (and kept for the same query's AND form).
        for (const terms of [['exhausted', 'pool'], ['pool', 'exhausted'], ['again', 'pool'], ["o'brien", 'pool']]) {
          const parsedAgain = terms.includes("o'brien") || (stemmed && terms.includes('again'));
          for (const allTerms of [false, true]) {
            const q = { live, terms, limit: 10, stemmed, allTerms };
            const before = parses();
            const built = await learned.search.lexical(q);
            const parsing = parsedAgain && !allTerms ? 1 : 0;
            expect(parses(), JSON.stringify(q)).toBe(before + parsing);
            // A store new to every word parses the query on the server.
            const fresh = open();
            const parsed = await fresh.search.lexical(q).finally(() => fresh.close());
            expect(parses()).toBe(before + parsing + 1);
            expect(built.map((h) => [h.id, h.allTerms, h.phrase, h.text])).toEqual(parsed.map((h) => [h.id, h.allTerms, h.phrase, h.text]));
            built.forEach((h, i) => expect(h.relevance).toBeCloseTo(parsed[i]!.relevance, 12));
            expect(built.length).toBeGreaterThan(0);
          }
        }
      }
    } finally {
      await learned.close();
      await drop();
    }
  });

  it('plans an OR search of common words once, as a backward read of the newest rows, and answers as a search planned for its values does', async () => {
    const { url, drop } = await freshSchema();
    const planned: Sent[] = [];
    const { store, session } = plannedReadsStore(url, planned);
    try {
      await store.migrate();
      // 3,000 live findings: 'alpha' in every second, 'beta' in every third, both in every sixth.
      await seedFindings(session, 3000, `concat_ws(' ', CASE WHEN n % 2 = 0 THEN 'alpha' END, 'plain', CASE WHEN n % 3 = 0 THEN 'beta' END, repeat('x ', n % 7))`);
      const q = { live: { now: Date.now(), disputeMinContradictions: 2 }, terms: ['alpha', 'beta'], limit: 60, window: 100 };
      const hits = await store.search.lexical(q);
      const statement = planned.find((p) => p.text.includes('ts_rank_cd'));
      expect(statement, 'the search ran on the connections that plan once').toBeDefined();
      // A filter every object passes sends the same search to the connections that plan for the values.
      const before = planned.length;
      const perValue = await store.search.lexical({ ...q, types: ['finding'] });
      expect(planned.length).toBe(before);
      expect(hits).toHaveLength(60);
      expect(hits.map((h) => [h.id, h.allTerms, h.phrase])).toEqual(perValue.map((h) => [h.id, h.allTerms, h.phrase]));
      hits.forEach((h, i) => expect(h.relevance).toBeCloseTo(perValue[i]!.relevance, 12));
      expect(hits.some((h) => h.allTerms) && hits.some((h) => !h.allTerms)).toBe(true);
      // Every row of each word's window and none besides, as the per-word reads find them:
      // 'alpha' in 3000, 2998 … 2802, 'beta' in 3000, 2997 … 2703, 34 of them in both.
      const windows = await store.search.lexical({ ...q, limit: 1000 });
      const perWord = await store.search.lexical({ ...q, types: ['finding'], limit: 1000 });
      expect(windows).toHaveLength(166);
      expect(windows.map((h) => h.id).sort()).toEqual(perWord.map((h) => h.id).sort());
      const plan = await planOf(url, statement!);
      expect(plan).toContain('Index Scan Backward using objects_pkey');
      // Planned without values, a plan through the GIN index could read every match of a word.
      expect(plan).not.toContain('objects_words');
      expect(plan).not.toContain('Seq Scan on objects');
    } finally {
      await store.close();
      await drop();
    }
  });

  it('reads common words’ windows by their rows’ keys from their third search under a change mark, while each holds the same rows: until a write lands or one of their objects leaves the live set, answering as the reads per word do', async () => {
    const { url, drop } = await freshSchema();
    const sent: Sent[] = [];
    const { store, session } = plannedReadsStore(url, sent);
    const fresh = new PgStore(new PoolSession({ url, max: 1, connectTimeoutMs: 5000 }));
    try {
      await store.migrate();
      // As above: 'alpha' in every second of 3,000, 'beta' in every third; the newest, 3000, in both, leaves the live set in 10 s.
      await seedFindings(session, 3000, `concat_ws(' ', CASE WHEN n % 2 = 0 THEN 'alpha' END, 'plain', CASE WHEN n % 3 = 0 THEN 'beta' END, repeat('x ', n % 7))`);
      const now = Date.now();
      await session.query('UPDATE objects SET live_until = $1 WHERE seq = 3000', [now + 10_000]);
      const q = (at: number) => ({ live: { now: at, disputeMinContradictions: 2 }, terms: ['alpha', 'beta'], limit: 1000, window: 100 });
      /** How the last search read its windows: each on its own, each on its own keeping its rows, or their kept rows by key. */
      const lastRead = () => {
        const { text } = sent.filter((s) => s.text.includes('ts_rank_cd')).at(-1)!;
        return text.includes('windows AS MATERIALIZED') ? 'keeping rows' : text.includes('o.seq = ANY(') ? 'by key' : 'per word';
      };
      const read = (hits: LexicalHit[]) => hits.map((h) => [h.id, h.relevance, h.allTerms, h.phrase]);

      const first = await store.search.lexical(q(now));
      expect(lastRead()).toBe('per word');
      expect(first).toHaveLength(166);
      expect(read(await store.search.lexical(q(now + 1)))).toEqual(read(first));
      expect(lastRead()).toBe('keeping rows');
      // The very answer, scores to the bit.
      expect(read(await store.search.lexical(q(now + 2)))).toEqual(read(first));
      expect(lastRead()).toBe('by key');
      // Planned once, without values: each kept row looked up by its key, and no other read.
      const plan = await planOf(url, sent.filter((s) => s.text.includes('ts_rank_cd')).at(-1)!);
      expect(plan).toContain('Index Scan using objects_pkey on objects o');
      expect(plan).toMatch(/Index Cond: \(seq = ANY/);
      expect(plan).not.toContain('Seq Scan on objects');
      expect(plan).not.toContain('objects_words');
      // Asked as of an instant before the rows were read: each window read again.
      await store.search.lexical(q(now - 1));
      expect(lastRead()).toBe('keeping rows');

      // 3000 has left the live set: each window now reaches one match further back.
      const later = await store.search.lexical(q(now + 20_000));
      expect(lastRead()).toBe('keeping rows');
      expect(later.map((h) => h.id)).not.toContain('3000'.padStart(26, '0'));
      expect(later.map((h) => h.id)).toContain('2800'.padStart(26, '0'));
      expect(read(later)).toEqual(read(await fresh.search.lexical(q(now + 20_000))));
      expect(read(await store.search.lexical(q(now + 20_001)))).toEqual(read(later));
      expect(lastRead()).toBe('by key');

      // A write moves the change mark: the new object is in alpha's window, and the first search after reads per word.
      const id = '01J0000000000000000000ALPH';
      await publishObject(store, { id, type: 'finding', title: 'alpha news', content: 'alpha news', topics: ['x'], sourceUrl: null, parentId: null, author: null, createdAt: now, expiresAt: now + 3_600_000, injectionSuspected: false, dedupeKey: id }, q(now + 20_002).live);
      const afterWrite = await store.search.lexical(q(now + 20_003));
      expect(lastRead()).toBe('per word');
      expect(afterWrite.map((h) => h.id)).toContain(id);
      expect(read(afterWrite)).toEqual(read(await fresh.search.lexical(q(now + 20_003))));
    } finally {
      await fresh.close();
      await store.close();
      await drop();
    }
  });

  it('plans a search of few matches and the count of them once, as reads of the full-text index alone whatever the words and filters', async () => {
    const { url, drop } = await freshSchema();
    const planned: Sent[] = [];
    const { store, session } = plannedReadsStore(url, planned);
    try {
      await store.migrate();
      // 20,000 live rows, 30 of them holding both rare words.
      await seedFindings(session, 20_000, `CASE WHEN n % 1000 = 0 OR n % 1700 = 0 THEN 'rare words here' ELSE 'common text' END`);
      const live = { now: Date.now(), disputeMinContradictions: 2 };
      const hits = await store.search.lexical({ live, terms: ['rare', 'words'], allTerms: true, types: ['finding'], limit: 100, window: 300 });
      expect(hits).toHaveLength(30);
      // Asked for no more than the rarest word's 30 objects: counted (fewer asked, the bound answers).
      expect(await store.search.allTermsCount({ terms: ['rare', 'words'], window: 300 }, 30)).toBe(30);
      const statement = planned.find((p) => p.text.includes('ts_rank_cd'));
      expect(statement, 'the search ran on the connections that plan once').toBeDefined();
      const count = planned.find((p) => p.text.includes('count(*)'));
      expect(count, 'so did the count of its matches').toBeDefined();
      const plan = await planOf(url, statement!);
      expect(plan).toContain('objects_words');
      // Beside the filters, the plan made without values read every live row of the expiry index too.
      expect(plan).not.toContain('objects_live_until');
      expect(plan).not.toContain('Seq Scan on objects');
      const countPlan = await planOf(url, count!);
      expect(countPlan).toContain('objects_words');
      expect(countPlan).not.toContain('Seq Scan on objects');
    } finally {
      await store.close();
      await drop();
    }
  });

  it('reads the window of an AND query whose words seldom meet, and counts their first matches, off the full-text index; of words that often meet, in the table’s order', async () => {
    // 20,000 live findings: 'alpha' in n % 10 = 0 or 1, 'beta' in 1 or 2 (a fifth each, both in a
    // tenth: by chance they would meet in a twenty-fifth); 'gamma' and 'delta' in every second, both in every fourth.
    const content = `concat_ws(' ', CASE WHEN n % 10 IN (0, 1) THEN 'alpha' END, CASE WHEN n % 10 IN (1, 2) THEN 'beta' END, CASE WHEN n % 2 = 0 THEN 'gamma' END, CASE WHEN n % 4 IN (0, 1) THEN 'delta' END, 'plain')`;
    await withSeededCustomReads(20_000, content, async ({ store, sent }) => {
      const live = { now: Date.now(), disputeMinContradictions: 2 };
      const seldom = await store.search.lexical({ live, terms: ['alpha', 'beta'], allTerms: true, limit: 300, window: 300 });
      expect(seldom.map((h) => h.id).sort()).toEqual(newestIds(10, 19_991));
      expect(seldom.every((h) => h.allTerms && h.relevance > 0)).toBe(true);
      const viaIndex = sent.find((p) => p.text.includes('ts_rank_cd'))!;
      expect(viaIndex.text).toContain('ARRAY(SELECT o.seq');
      // The filters apply before the window is cut: every finding passes a type, none a topic they lack.
      const typed = await store.search.lexical({ live, terms: ['alpha', 'beta'], allTerms: true, types: ['finding'], limit: 300, window: 300 });
      expect(typed.map((h) => h.id).sort()).toEqual(newestIds(10, 19_991));
      expect(await store.search.lexical({ live, terms: ['alpha', 'beta'], allTerms: true, topics: ['elsewhere'], limit: 300, window: 300 })).toEqual([]);
      expect(sent.filter((p) => p.text.includes('ARRAY(SELECT o.seq')).length).toBe(3);
      const often = await store.search.lexical({ live, terms: ['gamma', 'delta'], allTerms: true, limit: 300, window: 300 });
      expect(often.map((h) => h.id).sort()).toEqual(newestIds(4, 20_000));
      const newestFirst = sent.filter((p) => p.text.includes('ts_rank_cd')).at(-1)!;
      expect(newestFirst.text).not.toContain('ARRAY(SELECT o.seq');
      // Its rows score as they do when every match is ranked (no window).
      const bothWays = await store.search.lexical({ live, terms: ['alpha', 'beta'], allTerms: true, limit: 2000 });
      const byId = new Map(bothWays.map((h) => [h.id, h.relevance]));
      for (const h of seldom) expect(h.relevance).toBeCloseTo(byId.get(h.id)!, 12);
      // Counting the first 100 matches: of words that often meet, in the table's order; of the others, off the index.
      sent.length = 0;
      expect(await store.search.allTermsCount({ terms: ['gamma', 'delta'], window: 300 }, 100)).toBe(100);
      expect(await store.search.allTermsCount({ terms: ['alpha', 'beta'], window: 300 }, 100)).toBe(100);
      const [inOrder, offIndex] = sent.filter((p) => p.text.includes('count(*)'));
      expect(inOrder!.text).toContain('ts_match_vq');
      expect(offIndex!.text).not.toContain('ts_match_vq');
    });
  });

  it("reads an AND query's window off the newest rows' part of the full-text index where the estimate puts it there, and off every match where they hold fewer (migration 11)", async () => {
    // 40,000 live findings (ten buckets of 4,096 seqs): 'iota' in every fourth, 'kappa' and
    // 'lambda' in every second (by chance all three would meet in a sixteenth: they meet in every
    // fourth); 'eta' in every fourth of the older half alone, 'theta' in every fourth.
    const content = `concat_ws(' ', CASE WHEN n % 4 = 0 THEN 'iota theta' END, CASE WHEN n % 2 = 0 THEN 'kappa lambda' END, CASE WHEN n % 4 = 0 AND n <= 20000 THEN 'eta' END, 'plain')`;
    await withSeededCustomReads(40_000, content, async ({ url, store, session, sent }) => {
      const live = { now: Date.now(), disputeMinContradictions: 2 };
      const recent = await store.search.lexical({ live, terms: ['iota', 'kappa', 'lambda'], allTerms: true, limit: 300, window: 300 });
      expect(recent.map((h) => h.id).sort()).toEqual(newestIds(4, 40_000));
      const statement = sent.filter((p) => p.text.includes('ts_rank_cd')).at(-1)!;
      expect(statement.text).toContain('generate_series');
      // The index is asked for the words and the buckets at once.
      expect(await planOf(url, statement, 'custom')).toMatch(/Index Cond: \(\(words @@ .*\) AND \(ARRAY\[\(\(seq >> 12\)\)::integer\] &&/);
      // Its rows score as they do when every match is ranked (no window).
      const every = new Map((await store.search.lexical({ live, terms: ['iota', 'kappa', 'lambda'], allTerms: true, limit: 20_000 })).map((h) => [h.id, h.relevance]));
      for (const h of recent) expect(h.relevance).toBeCloseTo(every.get(h.id)!, 12);
      // The newest buckets hold none of 'eta theta': its window is every match's newest.
      const older = await store.search.lexical({ live, terms: ['eta', 'theta'], allTerms: true, limit: 300, window: 300 });
      expect(sent.filter((p) => p.text.includes('ts_rank_cd')).at(-1)!.text).toContain('generate_series');
      expect(older.map((h) => h.id).sort()).toEqual(newestIds(4, 20_000));
      const indexes = await session.query<{ def: string }>(
        `SELECT regexp_replace(indexdef, ' ON .* USING ', ' USING ') AS def FROM pg_indexes WHERE schemaname = current_schema() AND indexname IN ('objects_words', 'objects_stems') ORDER BY indexname`,
      );
      expect(indexes.rows.map((r) => r.def)).toEqual([
        'CREATE INDEX objects_stems USING gin (stems, (ARRAY[((seq >> 12))::integer]))',
        'CREATE INDEX objects_words USING gin (words, (ARRAY[((seq >> 12))::integer]))',
      ]);
    });
  });

  it('keeps an object whole in its row up to the most a page holds, its full-text vectors the last of its values to leave (migration 10)', async () => {
    const { store, session, dispose } = await realPgStoreWithSession();
    try {
      await store.migrate();
      const options = await session.query<{ options: string[] }>(`SELECT reloptions AS options FROM pg_class WHERE oid = 'objects'::regclass`);
      expect(options.rows[0]!.options).toContain('toast_tuple_target=8160');
      const storage = await session.query<{ name: string; storage: string }>(
        `SELECT attname AS name, attstorage AS storage FROM pg_attribute WHERE attrelid = 'objects'::regclass AND attname IN ('words', 'stems', 'content') ORDER BY attname`,
      );
      expect(storage.rows).toEqual([
        { name: 'content', storage: 'x' },
        { name: 'stems', storage: 'm' },
        { name: 'words', storage: 'm' },
      ]);
      // A finding of 120 distinct words: a row of about 5 KB, which the defaults would have split.
      const live = { now: Date.now(), disputeMinContradictions: 2 };
      const content = Array.from({ length: 120 }, (_, i) => `w${(i * 7919) % 10007}x${i}`).join(' ');
      const id = '01J00000000000000000000001';
      await publishObject(store, { id, type: 'finding', title: 'many words', content, topics: ['t'], sourceUrl: null, parentId: null, author: null, createdAt: live.now, expiresAt: live.now + 60_000, injectionSuspected: false, dedupeKey: id }, live);
      const row = await session.query<{ size: number; compressed: string | null; toast: string }>(
        `SELECT pg_column_size(o.*) AS size, coalesce(pg_column_compression(o.words), pg_column_compression(o.stems), pg_column_compression(o.content)) AS compressed,
           pg_relation_size((SELECT reltoastrelid FROM pg_class WHERE oid = 'objects'::regclass))::text AS toast
         FROM objects o WHERE o.id = $1`,
        [id],
      );
      expect(row.rows[0]!.size).toBeGreaterThan(4000);
      // Neither compressed nor moved out of the row.
      expect(row.rows[0]).toMatchObject({ compressed: null, toast: '0' });
    } finally {
      await dispose();
    }
  });

  it('counts nothing where a word fewer objects hold than asked for bounds the count', async () => {
    const { url, drop } = await freshSchema();
    const sent: Sent[] = [];
    const { store, session } = plannedReadsStore(url, sent);
    const custom = session.pipelines('custom');
    const query = custom.query.bind(custom);
    custom.query = (text, params) => (sent.push({ text, params: params ?? [] }), query(text, params));
    try {
      await store.migrate();
      // 'rare' in 20 objects, 'words' in the 10 of them with an even n and in 990 others.
      await seedFindings(session, 2000, `CASE WHEN n % 100 = 0 THEN CASE WHEN n % 200 = 0 THEN 'rare words' ELSE 'rare' END WHEN n % 2 = 0 THEN 'words' ELSE 'other' END`);
      const counts = () => sent.filter((s) => s.text.startsWith('SELECT count(*)::int AS n FROM'));
      const live = { now: Date.now(), disputeMinContradictions: 2 };
      const all = (await store.search.lexical({ live, terms: ['rare', 'words'], allTerms: true, limit: 100 })).length;
      expect(all).toBe(10);
      // Fewer than 100 hold 'rare': its 20 bound the 10 holding both, with no statement.
      const bound = await store.search.allTermsCount({ terms: ['rare', 'words'], window: 300 }, 100);
      expect(bound).toBeGreaterThanOrEqual(all);
      expect(bound).toBeLessThan(100);
      expect(counts()).toHaveLength(0);
      // Asked for no more than 'rare' holds, the index counts.
      expect(await store.search.allTermsCount({ terms: ['rare', 'words'], window: 300 }, 20)).toBe(10);
      expect(counts()).toHaveLength(1);
    } finally {
      await store.close();
      await drop();
    }
  });

  it("keeps a common word's count across writes until the board has grown by a hundredth, and counts a rarer one after every write", async () => {
    const { url, drop } = await freshSchema();
    const sent: Sent[] = [];
    const session = recordingSession(url, (text, params) => sent.push({ text, params }));
    const store = new PgStore(session);
    try {
      await store.migrate();
      // 'alpha' in all 1,500 objects, 'beta' in 15 of them.
      await seedFindings(session, 1500, `CASE WHEN n % 100 = 0 THEN 'alpha beta' ELSE 'alpha' END`);
      const live = { now: Date.now(), disputeMinContradictions: 2 };
      const search = () => store.search.lexical({ live, terms: ['alpha', 'beta'], limit: 10, window: 300 });
      // An object holding neither word: its publish only moves the change mark.
      const finding = (id: string): NewObject => ({ id, type: 'finding', title: 'gamma', content: 'gamma', topics: [], sourceUrl: null, parentId: null, author: null, createdAt: live.now, expiresAt: live.now + 60_000, injectionSuspected: false, dedupeKey: id });
      const takenAsCounted = () => notCountedByLastParse(sent);
      const parses = () => sent.filter((p) => p.text.includes('AS term_lexemes')).length;
      const first = await search();
      expect(takenAsCounted()).toEqual([]);
      // A write: 'beta' (15 objects) is counted again, 'alpha' (1,500) is not.
      await publishObject(store, finding('01J00000000000000000000ZZZ'), live);
      const before = parses();
      expect(await search()).toEqual(first);
      expect(parses()).toBe(before + 1);
      expect(takenAsCounted()).toEqual(["'alpha'"]);
      // The board grows by more than a hundredth (20 objects); once its object count is read again, 'alpha' is counted again.
      await session.query(`INSERT INTO objects (id, type, title, content, topics, topics_text, created_at, expires_at, dedupe_key, live_until, words, stems)
        SELECT 'more' || n, 'finding', 't', 'alpha', '{}', '', n, 9e15, 'more' || n, 9e15, to_tsvector('simple', 'alpha'), to_tsvector('english', 'alpha') FROM generate_series(1, 20) n`);
      await publishObject(store, finding('01J00000000000000000000ZZY'), live);
      expect(await search()).toEqual(first);
      expect(takenAsCounted()).toEqual(["'alpha'"]);
      // Past the count's time to live: this search still weighs with the last count while the next is read.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 });
      const reads = sent.length;
      await search();
      for (let waited = 0; !sent.slice(reads).some((p) => p.text.includes('AS total')); waited += 10) {
        if (waited > 5000) throw new Error('the object count was never read again');
        await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, 200));
      await publishObject(store, finding('01J00000000000000000000ZZX'), live);
      await search();
      expect(takenAsCounted()).toEqual([]);
    } finally {
      vi.useRealTimers();
      await store.close();
      await drop();
    }
  });

  it('weighs a word ANALYZE found in 10,000 objects or more by its sampled share, without counting it', async () => {
    const { url, drop } = await freshSchema();
    const sent: Sent[] = [];
    const session = recordingSession(url, (text, params) => sent.push({ text, params }));
    const store = new PgStore(session);
    try {
      await store.migrate();
      // 'alpha' in all 12,000 objects, 'beta' in 6,000 of them (then ANALYZE).
      await seedFindings(session, 12_000, `CASE WHEN n % 2 = 0 THEN 'alpha beta' ELSE 'alpha' END`);
      const live = { now: Date.now(), disputeMinContradictions: 2 };
      const hits = await store.search.lexical({ live, terms: ['alpha', 'beta'], limit: 10, window: 300 });
      const notCounted = notCountedByLastParse(sent);
      expect(notCounted).toContain("'alpha'");
      expect(notCounted).not.toContain("'beta'");
      // 'beta' was counted, exactly: every hit holds both words, and outranks any holding 'alpha' alone.
      expect(hits).toHaveLength(10);
      expect(hits.every((h) => h.allTerms)).toBe(true);
    } finally {
      await store.close();
      await drop();
    }
  });

  it('runs write batches and the pool on connections of their own, never queued behind the pipelined reads', async () => {
    const session = new PoolSession({ url: PG_URL, max: 1, connectTimeoutMs: 5000, genericMax: 1, readPipelines: 1 });
    try {
      // Each kind's one pipelined connection is busy for a second.
      let slept = 0;
      const busy = (['generic', 'custom'] as const).map((plans) => session.pipelines(plans).query('SELECT pg_sleep($1)', [1]).then(() => slept++));
      await new Promise((r) => setTimeout(r, 100));
      await session.genericPlans().query('SELECT $1::int AS n', [1]);
      await session.query('SELECT $1::int AS n', [2]);
      expect(slept).toBe(0);
      await Promise.all(busy);
    } finally {
      await session.close();
    }
  });

  it('compiles no statement (JIT) on either kind of connection, whatever its cost', async () => {
    const { url, drop } = await freshSchema();
    const session = new PoolSession({ url, max: 1, connectTimeoutMs: 5000 });
    try {
      await session.query('CREATE TABLE unindexed AS SELECT n FROM generate_series(1, 1000) n');
      // A scan no index serves: where it plans once, enable_seqscan=off prices it far past
      // jit_above_cost (on PostgreSQL 15); the threshold set to 0 makes any plan qualify.
      const explain = (s: PgStatements) => s.query<{ 'QUERY PLAN': string }>('EXPLAIN (ANALYZE) SELECT count(*) FROM unindexed WHERE n % $1 = 0', [7]);
      const plans = [
        ...(await Promise.all(
          [session, session.genericPlans()].map((kind) =>
            kind.transaction(async (tx) => {
              await tx.query('SET LOCAL jit_above_cost = 0');
              return planText((await explain(tx)).rows);
            }),
          ),
        )),
        // A pipelined connection (one of each kind here) runs no transaction across statements: the setting is its session's.
        ...(await Promise.all(
          [session.pipelines('custom'), session.pipelines('generic'), session.pipeline()].map(async (kind) => {
            await kind.query('SET jit_above_cost = 0');
            return planText((await explain(kind)).rows);
          }),
        )),
      ];
      for (const plan of plans) {
        expect(plan).toContain('Seq Scan on unindexed');
        expect(plan).not.toContain('JIT');
      }
    } finally {
      await session.close();
      await drop();
    }
  });

  it('keeps what a connection’s server process frees for its next query, on either kind of connection', async (ctx) => {
    const session = new PoolSession({ url: PG_URL, max: 1, connectTimeoutMs: 5000, genericMax: 1, readPipelines: 1 });
    try {
      for (const kind of [session, session.genericPlans(), session.pipelines('custom'), session.pipelines('generic'), session.pipeline()]) {
        const pid = (await kind.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        // Minor page faults (field 10) of the server process, read where the server runs (as on CI).
        if (procStat(pid)?.command !== 'postgres') {
          console.warn(`skipping the page-fault check: the server at ${PG_URL} runs on another machine`);
          return ctx.skip();
        }
        const faults = () => Number(procStat(pid)!.fields[7]);
        // About 1.7 MB of rows sorted in memory: on a fresh process without the freed block,
        // 86 faults at every run.
        const sort = 'SELECT count(*) FROM (SELECT g, repeat($1, 500) FROM generate_series(1, 3000) g ORDER BY md5(g::text)) s';
        await kind.query(sort, ['y']);
        const before = faults();
        for (let i = 0; i < 10; i++) await kind.query(sort, ['y']);
        expect(faults() - before).toBeLessThan(50);
      }
    } finally {
      await session.close();
    }
  });

  it('looks a duplicate up through one index on a large board, even with a generic plan', async () => {
    const { store, url, dispose } = await realPgStore();
    const s = new PoolSession({ url, max: 1, connectTimeoutMs: 5000 });
    try {
      await store.migrate();
      await s.query(`INSERT INTO objects (id, type, title, content, topics, topics_text, created_at, expires_at, dedupe_key, live_until, words, stems)
        SELECT lpad(n::text, 26, '0'), 'finding', 't', 'c', '{}', '', 0, 9e15, 'key' || n, 9e15, '', '' FROM generate_series(1, 20000) n`);
      await s.query('ANALYZE objects');
      // A prepared statement turns generic after five runs; forced here, as it then is.
      const plan = await s.transaction(async (tx) => {
        await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
        // The lookup the dedupe function runs (planned as a prepared statement is, once per session).
        const { rows: source } = await tx.query<{ prosrc: string }>("SELECT prosrc FROM pg_proc WHERE proname = 'agentboard_live_duplicate'");
        const lookup = /RETURN \((SELECT [^;]+)\);/.exec(source[0]!.prosrc)![1]!;
        await tx.query(`PREPARE dedupe AS ${lookup.replace(/\bkey\b/g, '$1').replace(/\bnow\b/g, '$2')}`);
        const { rows } = await tx.query<{ 'QUERY PLAN': string }>("EXPLAIN EXECUTE dedupe('key-absent', 0)");
        await tx.query('DEALLOCATE dedupe');
        return planText(rows);
      });
      expect(plan).toContain('objects_dedupe_id');
      expect(plan).not.toContain('objects_id_key');
    } finally {
      await s.close();
      await dispose();
    }
  });

  describe('full-text index upkeep', () => {
    const live = { now: Date.now(), disputeMinContradictions: 2 };
    const publish = async (store: PgStore, n: number) => {
      for (let i = 0; i < n; i++) {
        const id = `01J0000000000000000000${String(i).padStart(4, '0')}`;
        await publishObject(store, { id, type: 'finding', title: `pool ${i}`, content: `the pool exhausted ${i}`, topics: ['x'], sourceUrl: null, parentId: null, author: null, createdAt: live.now, expiresAt: live.now + 60_000, injectionSuspected: false, dedupeKey: id }, live);
      }
    };
    // gin_clean_pending_list answers the pages it moved: 0 once nothing is pending.
    const pendingPages = async (url: string) => {
      const s = new PoolSession({ url, max: 1, connectTimeoutMs: 5000 });
      try {
        return (await s.query<{ pages: number }>(`SELECT gin_clean_pending_list('objects_words'::regclass) + gin_clean_pending_list('objects_stems'::regclass) AS pages`)).rows[0]!.pages;
      } finally {
        await s.close();
      }
    };

    it('merges the pending lists after writes, and searches find the same', async () => {
      const { store, url, dispose } = await realPgStore({ indexUpkeepMs: 0 });
      try {
        await store.migrate();
        await publish(store, 30);
        const before = await store.search.lexical({ live, terms: ['pool', 'exhausted'], limit: 50 });
        expect(await store.upkeepIndexes()).toBeGreaterThan(0);
        expect(await pendingPages(url)).toBe(0);
        // Nothing written since: nothing to do.
        expect(await store.upkeepIndexes()).toBe(0);
        expect(await store.search.lexical({ live, terms: ['pool', 'exhausted'], limit: 50 })).toEqual(before);
        expect(before).toHaveLength(30);
      } finally {
        await dispose();
      }
    });

    it('merges on its own every PG_INDEX_UPKEEP_MS while the board writes', async () => {
      const { store, url, dispose } = await realPgStore({ indexUpkeepMs: 20 });
      try {
        await store.migrate();
        await publish(store, 30);
        await new Promise((r) => setTimeout(r, 1000));
        expect(await pendingPages(url)).toBe(0);
      } finally {
        await dispose();
      }
    });

    it('stops trying, with a warning, where the board does not own the indexes', async () => {
      const { url, drop } = await freshSchema();
      const owner = new PgStore(new PoolSession({ url, max: 2, connectTimeoutMs: 5000 }), { indexUpkeepMs: 0 });
      const role = `ab_reader_${Math.random().toString(36).slice(2, 10)}`;
      const admin = new PoolSession({ url, max: 1, connectTimeoutMs: 5000 });
      const warnings: string[] = [];
      let reader: PgStore | undefined;
      try {
        await owner.migrate();
        await admin.query(`CREATE ROLE ${role} LOGIN`);
        await admin.query(`GRANT USAGE ON SCHEMA ${new URL(url).searchParams.get('options')!.split('=')[1]} TO ${role}`);
        const asReader = new URL(url);
        asReader.username = role;
        reader = new PgStore(new PoolSession({ url: asReader.toString(), max: 1, connectTimeoutMs: 5000 }), { indexUpkeepMs: 0, warn: (m) => warnings.push(m) });
        expect(await reader.upkeepIndexes()).toBe(0);
        expect(await reader.upkeepIndexes()).toBe(0);
        expect(warnings).toEqual(['full-text index pending lists not merged']);
      } finally {
        await reader?.close();
        await owner.close();
        await admin.query(`DROP OWNED BY ${role}`).catch(() => undefined);
        await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
        await admin.close();
        await drop();
      }
    });
  });

  it('a reader following the event log misses nothing while two stores append in overlapping transactions', async () => {
    const { store: a, url, dispose } = await realPgStore();
    const b = new PgStore(new PoolSession({ url, max: 4, connectTimeoutMs: 5000 }));
    try {
      await a.migrate();
      await b.migrate();
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const seen: number[] = [];
      let done = false;
      const reader = (async () => {
        let cursor = 0;
        while (!done) {
          for (const e of await a.events.after(cursor, 100)) {
            seen.push(e.seq);
            cursor = e.seq;
          }
          await sleep(1);
        }
      })();
      // Each writer holds its transaction open a random while after appending: without ordered
      // commits, a later seq would become visible before an earlier one and the reader skip it.
      const writer = (store: PgStore, w: number) =>
        (async () => {
          for (let i = 0; i < 25; i++) {
            await store.withTransaction(`o${w}-${i}`, async (tx) => {
              await tx.events.append({ kind: 'created', objectId: `o${w}-${i}`, type: 'finding', topics: ['x'], threadId: `o${w}-${i}`, at: Date.now() });
              await sleep(Math.random() * 4);
            });
          }
        })();
      await Promise.all([writer(a, 1), writer(b, 2), writer(a, 3), writer(b, 4)]);
      await sleep(50);
      done = true;
      await reader;
      const all = (await a.events.after(0, 1000)).map((e) => e.seq);
      expect(all).toHaveLength(100);
      expect(seen).toEqual(all);
    } finally {
      await b.close();
      await dispose();
    }
  });
});
