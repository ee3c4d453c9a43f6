/**
 * The Store contract on PGlite (PostgreSQL in WebAssembly, with pgvector): the same SQL as on a
 * server, with the semantic leg answered by an HNSW index; and once with vectors in memory.
 */
import { expect, it } from 'vitest';
import { PgliteSession, pgliteStores } from '../helpers/pg.js';
import { PgStore } from '../../src/store/postgres/pg-store.js';
import { flatVectors, hasIterativeScan, PgvectorLeg } from '../../src/store/postgres/pg-vectors.js';
import { runStoreContract } from './store.case.js';
import { publishObject } from '../helpers/publish.js';

runStoreContract({ name: 'pglite + pgvector', makeStore: pgliteStores() });
runStoreContract({ name: 'pglite, vectors in memory', makeStore: pgliteStores({ vectorIndex: 'memory' }) });

it('pglite: answers the semantic leg from the HNSW index when pgvector is installed', async () => {
  const session = await PgliteSession.create();
  const store = new PgStore(session);
  await store.migrate();
  expect(store.capabilities.vectors).toEqual({ available: true, answeredBy: 'approximate-index' });
  const live = { now: Date.now(), disputeMinContradictions: 2 };
  const ids: string[] = [];
  for (let i = 0; i < 50; i++) {
    const id = `01J000000000000000000000${String(i).padStart(2, '0')}`;
    ids.push(id);
    await publishObject(store, { id, type: 'finding', title: id, content: id, topics: [i === 49 ? 'rare' : 'x'], sourceUrl: null, parentId: null, author: null, createdAt: live.now, expiresAt: live.now + 60_000, injectionSuspected: false, dedupeKey: id }, live);
    const angle = (i / 50) * Math.PI;
    await store.embeddings.save('m', [{ id, vector: Float32Array.of(Math.cos(angle), Math.sin(angle), 0) }]);
  }
  const hits = await store.search.semantic({ live, vector: Float32Array.of(1, 0, 0), model: 'm', limit: 3 });
  expect(hits.map((h) => h.id)).toEqual(ids.slice(0, 3));
  expect(hits[0]!.similarity).toBeCloseTo(1, 5);
  // The planner walks the model's HNSW index for this query shape.
  await session.exec('SET enable_seqscan = off');
  const plan = await session.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN SELECT seq FROM object_vectors v WHERE v.model = 'm' ORDER BY (v.vec::vector(3)) <=> '[1,0,0]'::vector(3) LIMIT 3`,
  );
  expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/object_vectors_hnsw_/);
  await session.exec('RESET enable_seqscan');
  // A filter that leaves only the farthest vector: found with iterative scans (this pgvector),
  // and as pgvector before 0.8 runs it, where the exact scan behind a short walk finds it.
  const rare = { live, vector: Float32Array.of(1, 0, 0), model: 'm', limit: 1, topics: ['rare'] };
  expect((await store.search.semantic(rare)).map((h) => h.id)).toEqual([ids[49]]);
  expect((await new PgvectorLeg(session, '0.7.4').nearest(rare)).map((h) => h.id)).toEqual([ids[49]]);
  await store.close();
});

it('pgvector: iterative index scans from 0.8 on', () => {
  expect(['0.5.1', '0.7.4', '0.8.0', '0.8.1', '1.0.0'].map(hasIterativeScan)).toEqual([false, false, true, true, true]);
});

it('pglite: binds vectors as one binary real[] that reads back as the very float32 values, each slice where it was put', async () => {
  const session = await PgliteSession.create();
  try {
    const vectors = [Float32Array.of(0.1, -2.5, 3.14159, -0), Float32Array.of(1e-40, 3.4028234663852886e38, -1.1754943508222875e-38), Float32Array.of(7)];
    const { flat, starts, lengths } = flatVectors(vectors);
    const { rows } = await session.query<{ v: number[] }>('SELECT ($1::real[])[s + 1 : s + l] AS v FROM unnest($2::int[], $3::int[]) WITH ORDINALITY t(s, l, n) ORDER BY n', [flat, starts, lengths]);
    expect(rows.map((r) => Float32Array.from(r.v))).toEqual(vectors);
    expect(Object.is(rows[0]!.v[3], -0)).toBe(true);
    const empty = flatVectors([]);
    expect((await session.query<{ n: number }>('SELECT cardinality($1::real[]) AS n', [empty.flat])).rows[0]!.n).toBe(0);
  } finally {
    await session.close();
  }
});
