/**
 * The semantic leg on PostgreSQL, answered one of two ways:
 * - `pgvector`: a `vector` copy of each embedding, an HNSW cosine index per model (a partial
 *   expression index, since models differ in dimension), and an exact re-rank of its candidates;
 *   an exact scan when filters leave the index fewer candidates than asked for.
 * - `memory`: where pgvector is not installed, vectors stay `real[]` and each process holds
 *   them in memory (MemoryVectors), kept current through LISTEN/NOTIFY; the database still
 *   says which of the nearest candidates are live and pass the filters (without filters, from
 *   their facts kept while nothing is written: MemoryVectors.#liveAmongKept).
 */
import { randomBytes } from 'node:crypto';
import type { SemanticHit, SemanticQuery } from '../../ports/search-index.js';
import { CANDIDATE_COLUMNS, candidateColumnsAt, toCandidate, type CandidateColumns, type CandidateValues } from '../object-columns.js';
import { KeptFacts, type SeqFacts } from '../kept-facts.js';
import { applyRows, DEFAULT_VECTOR_INDEX, ModelVectors, nearestLive, type VectorIndexSettings } from '../vector-memory.js';
import { addFilters, all, allAsColumns, liveParams, liveSql, type Params } from './pg-rows.js';
import { hasFilters } from '../sql-fragments.js';
import type { PgRoot, PgSession, PgStatements } from './pg-session.js';

export const VECTORS_CHANNEL = 'agentboard_vectors';
export type VectorMode = 'pgvector' | 'memory';
/** Seqs one NOTIFY payload names at most (`origin:seq,seq,…`, under PostgreSQL's 8,000 bytes). */
export const SEQS_PER_NOTIFY = 300;

/**
 * The SQL that announces the vectors stored for the seqs of `from` (a CTE) to every instance's
 * copy in memory: SEQS_PER_NOTIFY to a payload, each naming `@origin`, the writing copy, which
 * takes its own in directly (MemoryVectors.took). `@channel` is VECTORS_CHANNEL.
 */
export const notifyVectorsSql = (from: string) =>
  `SELECT pg_notify(@channel, @origin || ':' || string_agg(s.seq::text, ',')) FROM (SELECT seq, (row_number() OVER () - 1) / ${SEQS_PER_NOTIFY} AS g FROM ${from}) s GROUP BY s.g`;

/** float4's type oid, which a binary array names for its elements. */
const FLOAT4_OID = 700;

/**
 * Vectors bound as one flat real[] (each its slice: starts and lengths), in PostgreSQL's binary
 * array format (a Buffer is sent as binary): as text, node-postgres would quote each number,
 * and even as one literal each float32 was written as the 17 digits of its double and parsed
 * back by the server.
 */
export function flatVectors(vectors: readonly Float32Array[]): { flat: Buffer; starts: number[]; lengths: number[] } {
  const starts: number[] = [];
  let size = 0;
  for (const v of vectors) {
    starts.push(size);
    size += v.length;
  }
  // Dimensions (1, or 0 when empty), no nulls, element type; then each dimension's length and
  // lower bound; then each element as its length (4) and its big-endian bytes.
  const header = size === 0 ? 12 : 20;
  const flat = Buffer.allocUnsafe(header + 8 * size);
  flat.writeInt32BE(size === 0 ? 0 : 1, 0);
  flat.writeInt32BE(0, 4);
  flat.writeInt32BE(FLOAT4_OID, 8);
  if (size > 0) {
    flat.writeInt32BE(size, 12);
    flat.writeInt32BE(1, 16);
  }
  let at = header;
  for (const v of vectors) {
    for (let i = 0; i < v.length; i++, at += 8) {
      flat.writeInt32BE(4, at);
      flat.writeFloatBE(v[i]!, at + 4);
    }
  }
  return { flat, starts, lengths: vectors.map((v) => v.length) };
}

/** A payload's writer and seqs; a bare seq (an instance from before payloads named their writer) has no writer. */
function parsePayload(payload: string): { origin: string | null; seqs: number[] } {
  const colon = payload.indexOf(':');
  const list = colon < 0 ? payload : payload.slice(colon + 1);
  return { origin: colon < 0 ? null : payload.slice(0, colon), seqs: list.split(',').map(Number).filter(Number.isSafeInteger) };
}

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
const vectorText = (v: Float32Array) => `[${Array.from(v).join(',')}]`;
const indexName = (model: string, dim: number) => {
  let h = 0;
  for (const ch of model) h = (Math.imul(h, 31) + ch.codePointAt(0)!) >>> 0;
  return `object_vectors_hnsw_${h.toString(36)}_${dim}`;
};

/**
 * The facts of the objects among `seqs`, by seq (a seq without an object is missing); with
 * `q`, only those live at its instant that pass its filters.
 */
async function factsAmong(db: PgStatements, seqs: number[], q?: SemanticQuery): Promise<Map<number, SeqFacts>> {
  // One array literal: node-postgres quotes and escapes each element of a JS array, and integers need neither.
  const params: Params = { seqs: `{${seqs.join(',')}}` };
  const where = ['o.seq = ANY(@seqs::bigint[])'];
  if (q) {
    Object.assign(params, liveParams(q.live));
    where.push(liveSql('o'));
    addFilters(q, where, params);
  }
  const values = await allAsColumns<[...CandidateValues, seqs: number[], liveUntil: number[], spaces: string[]]>(
    db,
    `SELECT ${CANDIDATE_COLUMNS}, o.seq, o.live_until, o.space FROM objects o WHERE ${where.join(' AND ')}`,
    ['id', 'created_at', 'verification_count', 'contradiction_count', 'seq', 'live_until', 'space'],
    params,
  );
  const [, , , , found, liveUntil, spaces] = values;
  return new Map(found.map((seq, i) => [seq, { columns: candidateColumnsAt(values, i), liveUntil: liveUntil[i]!, space: spaces[i]! }]));
}

/** The columns of each of `seqs` that is live and passes the filters, in their order (nearestLive). */
async function liveAmong(db: PgStatements, seqs: number[], q: SemanticQuery): Promise<(CandidateColumns | undefined)[]> {
  const found = await factsAmong(db, seqs, q);
  return seqs.map((seq) => found.get(seq)?.columns);
}

/** Whether this pgvector walks an index past filtered-out rows (`hnsw.iterative_scan`, 0.8 and later). */
export const hasIterativeScan = (version: string): boolean => {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 0 || minor >= 8;
};

export class PgvectorLeg {
  readonly #indexed = new Set<string>();

  /** `version`: the installed pgvector's, e.g. `0.8.0`. */
  constructor(
    private readonly db: PgSession,
    private readonly version: string,
  ) {}

  /** Creates the model's HNSW index once per process (IF NOT EXISTS: racing instances are fine). */
  async ensureIndex(model: string, dim: number): Promise<void> {
    const name = indexName(model, dim);
    if (this.#indexed.has(name)) return;
    await this.db
      .exec(`CREATE INDEX IF NOT EXISTS ${name} ON object_vectors USING hnsw ((vec::vector(${dim})) vector_cosine_ops) WHERE model = ${literal(model)}`)
      .catch((err: { code?: string }) => {
        // Another instance created it between our check and our CREATE.
        if (err.code !== '23505' && err.code !== '42P07') throw err;
      });
    this.#indexed.add(name);
  }

  async nearest(q: SemanticQuery): Promise<SemanticHit[]> {
    const dim = q.vector.length;
    await this.ensureIndex(q.model, dim);
    const params: Params = { ...liveParams(q.live), q: vectorText(q.vector) };
    const where = [`v.model = ${literal(q.model)}`, liveSql('o')];
    addFilters(q, where, params);
    const search = (db: PgSession, distance: string) =>
      all<CandidateColumns & { similarity: number }>(
        db,
        `WITH c AS (
           SELECT v.seq, ${distance} AS dist FROM object_vectors v JOIN objects o ON o.seq = v.seq
           WHERE ${where.join(' AND ')} ORDER BY ${distance} LIMIT ${Math.max(0, Math.trunc(q.limit))})
         SELECT ${CANDIDATE_COLUMNS}, 1 - c.dist AS similarity FROM c JOIN objects o ON o.seq = c.seq ORDER BY c.dist, o.seq`,
        params,
      );
    // The index walk (the expression matches the index), with iterative scans where pgvector
    // has them so filters do not starve it; the outer ORDER BY re-ranks by exact distance.
    const iterative = hasIterativeScan(this.version) ? '; SET LOCAL hnsw.iterative_scan = relaxed_order' : '';
    const approximate = await this.db.transaction(async (tx) => {
      await tx.exec(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(40, q.limit * 2))}${iterative}`);
      return search(tx, `(v.vec::vector(${dim})) <=> @q::vector(${dim})`);
    });
    // Fewer than asked: the filters may hide more than the index walk reached (without
    // iterative scans, past ef_search candidates). An exact scan (an expression no index
    // matches) over the filtered set is then correct.
    const rows = approximate.length < q.limit ? await search(this.db, 'v.vec <=> @q::vector') : approximate;
    return rows.map((r) => toCandidate(r, { similarity: r.similarity }));
  }
}

/**
 * Every vector of a model in this process's memory (vector-memory.ts). Loaded on the first
 * query of a model; NOTIFY payloads (object seqs) bring changes from every instance, and each
 * is read back; this instance's own saves come in directly (took), and their payloads, which
 * name this copy as their writer, are passed over. A lost listening connection drops the copy,
 * which reloads on the next query.
 */
export class MemoryVectors {
  /** Names this copy in the payloads of the saves it made itself. */
  readonly origin = randomBytes(6).toString('hex');
  readonly #models = new Map<string, Promise<ModelVectors>>();
  /** The loaded ones among #models. */
  readonly #ready = new Map<string, ModelVectors>();
  #listening: Promise<{ stop(): Promise<void> }> | null = null;
  #pending = new Set<number>();
  #flushing: Promise<void> | null = null;
  /** The nearest objects' facts as read under one change mark (#liveAmongKept). */
  readonly #facts = new KeptFacts((seqs) => factsAmong(this.db.pipelines('custom'), seqs));

  constructor(
    private readonly db: PgRoot,
    private readonly index: VectorIndexSettings = DEFAULT_VECTOR_INDEX,
    /**
     * Told when the copy changed: after another instance's vectors were taken in, or the copy
     * dropped. Their write moved the change mark when heard of, possibly before this copy
     * caught up, so an answer kept meanwhile must not outlive the catching up.
     */
    private readonly changed: () => void = () => undefined,
    /** The store's change mark (PgStore.changeMark): moves with every write any instance makes; null while unknown. */
    private readonly mark: () => Promise<number | null> = async () => null,
  ) {}

  async nearest(q: SemanticQuery): Promise<SemanticHit[]> {
    const m = await this.#load(q.model);
    await this.#flushing;
    // Short statements, one per search: on the pipelined connections (PgRoot.pipelines).
    return nearestLive(m, q, (seqs) => (hasFilters(q) ? liveAmong(this.db.pipelines('custom'), seqs, q) : this.#liveAmongKept(seqs, q)));
  }

  /** liveAmong without filters, from the facts kept while the change mark stands (kept-facts.ts). */
  async #liveAmongKept(seqs: number[], q: SemanticQuery): Promise<(CandidateColumns | undefined)[]> {
    const mark = await this.mark();
    return mark === null ? liveAmong(this.db.pipelines('custom'), seqs, q) : this.#facts.liveAmong(mark, seqs, q.live.now, q.live.space);
  }

  /**
   * Takes in what this instance's own save committed (a null vector was deleted), without
   * reading it back. A model still loading may have read the rows before that commit: then the
   * seqs are read back as another instance's would be.
   */
  took(model: string, items: readonly { seq: number; vector: Float32Array | null }[]): void {
    if (items.length === 0 || this.#models.size === 0) return;
    if (this.#ready.size < this.#models.size) {
      this.#heard(items.map((i) => i.seq));
      return;
    }
    const rows = items.flatMap(({ seq, vector }) => (vector ? [{ seq, model, embedding: vector }] : []));
    applyRows(this.#ready, items.map((i) => i.seq), rows);
    this.changed();
  }

  /** Forgets every loaded model; the next query reloads. */
  drop(): void {
    this.#models.clear();
    this.#ready.clear();
    this.changed();
  }

  async close(): Promise<void> {
    const l = this.#listening;
    this.#listening = null;
    this.drop();
    await (await l?.catch(() => null))?.stop();
  }

  #load(model: string): Promise<ModelVectors> {
    let m = this.#models.get(model);
    if (!m) {
      const loading = (m = this.#listen().then(() => this.#read(model)));
      this.#models.set(model, loading);
      loading.then(
        (loaded) => this.#models.get(model) === loading && this.#ready.set(model, loaded),
        () => this.#models.get(model) === loading && this.#models.delete(model),
      );
    }
    return m;
  }

  /** Subscribes before the first load, so no change between the load and the subscription is missed. */
  #listen(): Promise<unknown> {
    this.#listening ??= this.db.listen(
      VECTORS_CHANNEL,
      (payload) => {
        const { origin, seqs } = parsePayload(payload);
        if (origin !== this.origin) this.#heard(seqs);
      },
      () => {
        // Notifications may have been missed: start over on the next query.
        this.#listening = null;
        this.drop();
      },
    );
    this.#listening.catch(() => (this.#listening = null));
    return this.#listening;
  }

  /** Seqs whose vectors changed: read back together, once the current turn of the event loop ends. */
  #heard(seqs: readonly number[]): void {
    if (seqs.length === 0) return;
    for (const seq of seqs) this.#pending.add(seq);
    this.#flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#flush());
  }

  async #read(model: string): Promise<ModelVectors> {
    const m = new ModelVectors(this.index);
    let after = 0;
    for (;;) {
      const rows = await all<{ seq: number; embedding: number[] }>(
        this.db,
        'SELECT seq, embedding FROM object_vectors WHERE model = @model AND seq > @after ORDER BY seq LIMIT 5000',
        { model, after },
      );
      for (const r of rows) m.put(r.seq, r.embedding);
      if (rows.length < 5000) return m;
      after = rows[rows.length - 1]!.seq;
    }
  }

  async #flush(): Promise<void> {
    const seqs = [...this.#pending];
    this.#pending.clear();
    try {
      const rows = await all<{ seq: number; model: string; embedding: number[] }>(this.db, 'SELECT seq, model, embedding FROM object_vectors WHERE seq = ANY(@seqs::bigint[])', { seqs });
      const loaded = await Promise.all([...this.#models].map(async ([name, p]) => [name, await p.catch(() => null)] as const));
      applyRows(
        loaded.filter((e): e is [string, ModelVectors] => e[1] !== null),
        seqs,
        rows,
      );
      this.changed();
    } catch {
      this.drop();
    } finally {
      this.#flushing = null;
    }
  }
}
