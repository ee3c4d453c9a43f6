/**
 * The semantic leg on SQLite, answered one of two ways (SQLITE_VECTORS):
 * - `memory` (the default): each process holds the vectors in memory (vector-memory.ts). It
 *   keeps them current from `vector_changes`, a log of `object_vectors` writes (written with
 *   each vector, sqlite-rows.ts logVectorChange; deletes by a trigger), read before each query:
 *   one index range read that also brings other processes' writes.
 * - `scan`: sqlite-vec's exact cosine distance over the filtered rows, for a board that would
 *   rather not hold its vectors in memory (about dimension + 75 bytes per object).
 * Either way the database applies the filters. The live rule too, but for `memory` searches
 * without filters, which check the nearest objects against their facts as kept while the
 * change mark stands (kept-facts.ts), as PostgreSQL's memory vectors do.
 */
import type Database from 'better-sqlite3';
import type { SemanticHit, SemanticQuery } from '../../ports/search-index.js';
import { CANDIDATE_COLUMNS, candidateColumns, toCandidate, type CandidateColumns, type CandidateRow } from '../object-columns.js';
import { KeptFacts, type SeqFacts } from '../kept-facts.js';
import { applyRows, blobVector, DEFAULT_VECTOR_INDEX, ModelVectors, nearestLive, type VectorIndexSettings } from '../vector-memory.js';
import { addFilters, limitSql, liveParams, liveSql, type Sql } from './sqlite-rows.js';
import { hasFilters } from '../sql-fragments.js';

export type SqliteVectorMode = 'memory' | 'scan';

export interface SqliteVectorLeg {
  nearest(q: SemanticQuery): Promise<SemanticHit[]>;
}

export class SqliteScanVectors implements SqliteVectorLeg {
  constructor(private readonly sql: Sql) {}

  async nearest(q: SemanticQuery): Promise<SemanticHit[]> {
    const params: Record<string, unknown> = {
      ...liveParams(q.live),
      model: q.model,
      q: Buffer.from(q.vector.buffer, q.vector.byteOffset, q.vector.byteLength),
    };
    const where = ['v.model = @model', liveSql('o')];
    addFilters(q, where, params);
    // Exact distances over the filtered set: correct however selective the filters are.
    const rows = this.sql(
      `SELECT ${CANDIDATE_COLUMNS}, 1 - vec_distance_cosine(v.embedding, @q) AS similarity
       FROM object_vectors v JOIN objects o ON o.seq = v.seq
       WHERE ${where.join(' AND ')} ORDER BY similarity DESC ${limitSql(q.limit)}`,
    ).all(params) as (CandidateColumns & { similarity: number })[];
    return rows.map((r) => toCandidate(r, { similarity: r.similarity }));
  }
}

export class SqliteMemoryVectors implements SqliteVectorLeg {
  readonly #models = new Map<string, ModelVectors>();
  /** The last `vector_changes` id the loaded models reflect. */
  #last = 0;
  /** The nearest objects' facts as read under one change mark, for searches without filters. */
  readonly #facts = new KeptFacts((seqs) => this.#factsAmong(seqs));

  constructor(
    private readonly db: Database.Database,
    private readonly sql: Sql,
    private readonly index: VectorIndexSettings = DEFAULT_VECTOR_INDEX,
    /** The store's change mark (SqliteStore.changeMark): moves with every write, this process's or another's. */
    private readonly mark: () => Promise<string>,
  ) {}

  async nearest(q: SemanticQuery): Promise<SemanticHit[]> {
    this.#catchUp();
    if (!this.#models.has(q.model)) this.#reload(q.model);
    // Without filters, the live check comes from the facts kept under the change mark.
    const mark = hasFilters(q) ? null : await this.mark();
    return nearestLive(this.#models.get(q.model)!, q, (seqs) => (mark === null ? this.#liveAmong(seqs, q) : this.#facts.liveAmong(mark, seqs, q.live.now, q.live.space)));
  }

  /** Applies the changes logged since the last read; reloads when the log no longer reaches back. */
  #catchUp(): void {
    if (this.#models.size === 0) return;
    const changes = this.sql('SELECT id, seq FROM vector_changes WHERE id > ? ORDER BY id').all(this.#last) as { id: number; seq: number }[];
    if (changes.length === 0) return;
    if (changes[0]!.id > this.#last + 1) {
      this.#reload();
      return;
    }
    const seqs = [...new Set(changes.map((c) => c.seq))];
    const rows = (this.sql('SELECT seq, model, embedding FROM object_vectors WHERE seq IN (SELECT value FROM json_each(?))').all(JSON.stringify(seqs)) as { seq: number; model: string; embedding: Buffer }[]).map(
      (r) => ({ ...r, embedding: blobVector(r.embedding) }),
    );
    applyRows(this.#models, seqs, rows);
    this.#last = changes[changes.length - 1]!.id;
  }

  /** Reads every loaded model (and `model`) afresh, with the log position, from one snapshot. */
  #reload(model?: string): void {
    const names = new Set([...this.#models.keys(), ...(model === undefined ? [] : [model])]);
    this.db.transaction(() => {
      this.#last = (this.sql('SELECT coalesce(max(id), 0) AS id FROM vector_changes').get() as { id: number }).id;
      for (const name of names) {
        const m = new ModelVectors(this.index);
        // Rows as arrays and one float buffer for all: a million vectors load without garbage.
        let scratch: Float32Array | undefined;
        for (const [seq, embedding] of this.sql('SELECT seq, embedding FROM object_vectors WHERE model = ?').raw(true).iterate(name) as IterableIterator<[number, Buffer]>) {
          m.put(seq, (scratch = blobVector(embedding, scratch)));
        }
        this.#models.set(name, m);
      }
    })();
  }

  /**
   * The facts of the objects among `seqs`, by seq (a seq without an object is missing); with
   * `q`, only those live at its instant that pass its filters.
   */
  #factsAmong(seqs: number[], q?: SemanticQuery): Map<number, SeqFacts> {
    const params: Record<string, unknown> = { seqs: JSON.stringify(seqs) };
    const where = ['1'];
    if (q) {
      Object.assign(params, liveParams(q.live));
      where.push(liveSql('o'));
      addFilters(q, where, params);
    }
    // Rows as arrays: better-sqlite3 builds an object per row slower than the lookups cost.
    const rows = this.sql(`SELECT ${CANDIDATE_COLUMNS}, o.seq, o.live_until, o.space FROM json_each(@seqs) s JOIN objects o ON o.seq = s.value WHERE ${where.join(' AND ')}`)
      .raw(true)
      .all(params) as [...CandidateRow, seq: number, liveUntil: number, space: string][];
    return new Map(rows.map((r) => [r[4], { columns: candidateColumns(r), liveUntil: r[5], space: r[6] }]));
  }

  /** The columns of each of `seqs` that is live and passes the filters, in their order (nearestLive). */
  async #liveAmong(seqs: number[], q: SemanticQuery): Promise<(CandidateColumns | undefined)[]> {
    const found = this.#factsAmong(seqs, q);
    return seqs.map((seq) => found.get(seq)?.columns);
  }
}
