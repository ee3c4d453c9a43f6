import { afterEach, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../clock.js';
import { loadConfig } from '../../config.js';
import { createLogger } from '../../log.js';
import type { NewObject } from '../../ports/object-store.js';
import type { Store } from '../../ports/store.js';
import { SqliteStore } from '../../store/sqlite/sqlite-store.js';
import { ReadCache } from '../read-cache.js';
import { Searcher } from './search.js';
import { publishObject } from '../../../test/helpers/publish.js';

const T0 = Date.UTC(2026, 0, 1);
const limits = loadConfig({}).limits;
let store: SqliteStore;
const clock = new ManualClock(T0);
const live = () => ({ now: clock.now(), disputeMinContradictions: limits.disputeMinContradictions });

const row = (n: number, content: string): NewObject => ({
  id: `01J0000000000000000000000${n}`,
  type: 'finding',
  title: '',
  content,
  topics: ['pool'],
  sourceUrl: null,
  parentId: null,
  author: null,
  createdAt: T0,
  expiresAt: T0 + 86_400_000,
  injectionSuspected: false,
  dedupeKey: `k${n}`,
});

async function insertAll(rows: readonly (readonly [number, string])[]) {
  for (const [n, content] of rows) await publishObject(store, row(n, content), live());
}

function searcher(s: Store) {
  return new Searcher({ store: s, clock, limits, log: createLogger('silent'), embedder: null, semanticBudgetMs: 100, topicCounts: (l, slugs) => s.objects.topicCounts(l, slugs) });
}

beforeEach(async () => {
  store = new SqliteStore(':memory:');
  await store.migrate();
  await insertAll([
    [1, 'connection pool exhausted'],
    [2, 'the connection pool was exhausted again'],
    [3, 'exhausted: every connection in the pool'],
  ]);
});
afterEach(() => store.close());

it('reads the page in full after ranking, passing over an object hidden in between for the next one', async () => {
  const q = { q: 'connection pool exhausted', mode: 'lexical' as const, limit: 2 };
  const ranked = (await searcher(store).search({ ...q, limit: 3 })).hits.map((h) => h.object.id);
  expect(ranked).toHaveLength(3);
  // Hidden after the candidates were ranked, before the page is read.
  const racing: Store = Object.create(store, {
    search: {
      value: {
        lexical: async (lq: Parameters<Store['search']['lexical']>[0]) => {
          const hits = await store.search.lexical(lq);
          await store.objects.setHidden(ranked[0]!, true, live());
          return hits;
        },
        allTermsCount: store.search.allTermsCount.bind(store.search),
        semantic: store.search.semantic.bind(store.search),
      },
    },
  });
  const { hits } = await searcher(racing).search(q);
  expect(hits.map((h) => h.object.id)).toEqual([ranked[1], ranked[2]]);
  expect(hits.every((h) => !h.object.hidden)).toBe(true);
  expect(hits[0]!.score).toBe(1);
});

it("answers alike whether the index's count sends the OR query alone or the AND query first", async () => {
  await insertAll([
    [4, 'pool sizing notes'],
    [5, 'connection refused by the proxy'],
    [6, 'exhausted retries on the connection'],
  ]);
  let bounded = 0;
  // A count too high to trust sends every query down the AND-first path.
  const loose: Store = Object.create(store, {
    search: { value: { lexical: store.search.lexical.bind(store.search), semantic: store.search.semantic.bind(store.search), allTermsCount: async () => Infinity } },
  });
  const counting: Store = Object.create(store, {
    search: {
      value: {
        lexical: store.search.lexical.bind(store.search),
        semantic: store.search.semantic.bind(store.search),
        allTermsCount: async (q: Parameters<Store['search']['allTermsCount']>[0], upTo: number) => {
          const n = await store.search.allTermsCount(q, upTo);
          bounded += n < upTo ? 1 : 0;
          return n;
        },
      },
    },
  });
  for (const q of ['connection pool exhausted', 'pool connection', 'exhausted retries', 'proxy pool']) {
    for (const mode of ['lexical', 'hybrid'] as const) {
      for (const limit of [1, 2, 10]) {
        const answer = async (s: Store) => (await searcher(s).search({ q, mode, limit })).hits.map((h) => [h.object.id, h.score, h.matchedBy]);
        expect(await answer(counting)).toEqual(await answer(loose));
      }
    }
  }
  expect(bounded).toBeGreaterThan(0);
});

it("answers as the store's own marked OR query would, whether the AND query fills the leg or not", async () => {
  await insertAll([
    [4, 'pool sizing notes'],
    [5, 'connection refused by the proxy'],
    [6, 'exhausted retries on the connection'],
  ]);
  type Lexical = Store['search']['lexical'];
  // The reference: every query the store's OR query, its marks as the store works them out.
  const orMarked: Lexical = async (q) => {
    const hits = await store.search.lexical({ ...q, allTerms: false, unmarked: false });
    if (q.allTerms) return hits.filter((h) => h.allTerms);
    return q.unmarked ? hits.map(({ text: _, ...h }) => ({ ...h, allTerms: false, phrase: false })) : hits;
  };
  const calls = { and: 0, or: 0 };
  const counting: Lexical = (q) => (q.allTerms ? calls.and++ : calls.or++, store.search.lexical(q));
  const over = (lexical: Lexical): Store =>
    Object.create(store, { search: { value: { lexical, allTermsCount: store.search.allTermsCount.bind(store.search), semantic: store.search.semantic.bind(store.search) } } });
  for (const q of ['connection pool exhausted', 'pool connection', 'exhausted retries', 'proxy pool']) {
    for (const mode of ['lexical', 'hybrid'] as const) {
      for (const limit of [1, 2, 10]) {
        const answer = async (s: Store) => (await searcher(s).search({ q, mode, limit })).hits.map((h) => [h.object.id, h.score, h.matchedBy]);
        expect(await answer(over(counting))).toEqual(await answer(over(orMarked)));
      }
    }
  }
  // Both ways were taken: the AND answer alone (fewer OR queries than searches), and the OR query.
  expect(calls.and).toBeGreaterThan(0);
  expect(calls.or).toBeGreaterThan(0);
  expect(calls.or).toBeLessThan(4 * 2 * 3);
});

it("keeps every object holding all the terms when the OR query's window leaves the older ones out", async () => {
  const exact = { ...row(0, 'pool exhausted'), topics: ['notes'], id: '01J00000000000000000000E00', dedupeKey: 'exact' };
  await publishObject(store, exact, live());
  // Newer objects holding one word each: more than the OR query's window of either word.
  for (let n = 0; n < 25; n++) {
    for (const word of ['pool', 'exhausted']) await publishObject(store, { ...row(0, `${word} note ${n}`), topics: ['notes'], id: `01J0000000000000000${word === 'pool' ? 'P' : 'X'}${String(n).padStart(6, '0')}`, dedupeKey: `${word}${n}` }, live());
  }
  const narrow = { ...limits, search: { ...limits.search, lexicalWindow: 10, candidates: 10 } };
  const s = new Searcher({ store, clock, limits: narrow, log: createLogger('silent'), embedder: null, semanticBudgetMs: 100, topicCounts: (l, slugs) => store.objects.topicCounts(l, slugs) });
  const { hits } = await s.search({ q: 'pool exhausted', mode: 'lexical', limit: 10 });
  // Every object holding both words (the three of beforeEach and the old exact one) comes first.
  const holdingBoth = [exact.id, ...[1, 2, 3].map((n) => row(n, '').id)];
  expect(new Set(hits.slice(0, 4).map((h) => h.object.id))).toEqual(new Set(holdingBoth));
  expect(hits).toHaveLength(10);
});

it('asks the lexical leg for the newest SEARCH_LEXICAL_WINDOW matches, an OR query a share per term, never fewer than its candidates', async () => {
  const windows: (number | undefined)[] = [];
  const spying: Store = Object.create(store, {
    search: {
      value: {
        ...store.search,
        allTermsCount: (q: Parameters<Store['search']['allTermsCount']>[0], upTo: number) => store.search.allTermsCount(q, upTo),
        lexical: (lq: Parameters<Store['search']['lexical']>[0]) => (windows.push(lq.window), store.search.lexical(lq)),
      },
    },
  });
  const run = (lexicalWindow: number) =>
    new Searcher({ store: spying, clock, limits: { ...limits, search: { ...limits.search, lexicalWindow } }, log: createLogger('silent'), embedder: null, semanticBudgetMs: 100, topicCounts: (l, slugs) => store.objects.topicCounts(l, slugs) }).search({
      q: `connection pool ${lexicalWindow}`,
      mode: 'lexical',
      limit: 10,
    });
  await run(500);
  await run(20);
  // Each search's AND query (the page comes first; it matches nothing here), then its OR query,
  // whose window is shared among its three terms, but never below the candidates.
  expect(windows).toEqual([500, Math.ceil(500 / 3), limits.search.candidates, limits.search.candidates]);
});

it('keeps a lexical leg from the second time its search is asked, so a search asked once keeps nothing', async () => {
  let legs = 0;
  const counting: Store = Object.create(store, {
    search: {
      value: Object.assign(Object.create(store.search), {
        lexical: (lq: Parameters<Store['search']['lexical']>[0]) => (legs++, store.search.lexical(lq)),
      }),
    },
  });
  const memo = new ReadCache({ store, now: () => clock.now(), maxBytes: 1 << 20, expiringFraction: limits.expiringFraction });
  const s = new Searcher({ store: counting, clock, limits, log: createLogger('silent'), embedder: null, semanticBudgetMs: 100, topicCounts: (l, slugs) => store.objects.topicCounts(l, slugs), memo });
  const ids = async (q: string) => (await s.search({ q, mode: 'lexical', limit: 10 })).hits.map((h) => h.object.id);
  // One word: one lexical statement per computed leg.
  const first = await ids('exhausted');
  expect(legs).toBe(1);
  // Asked again: computed again (nothing was kept), and kept now.
  expect(await ids('exhausted')).toEqual(first);
  expect(legs).toBe(2);
  expect(await ids('exhausted')).toEqual(first);
  expect(await ids('exhausted')).toEqual(first);
  expect(legs).toBe(2);
  // Another search asked once keeps nothing, and takes nothing from the first one's.
  expect(await ids('pool')).toHaveLength(3);
  expect(legs).toBe(3);
  expect(await ids('exhausted')).toEqual(first);
  expect(legs).toBe(3);
  // A write moves the mark: the kept leg is computed again, and kept again at once (its search was asked before).
  await insertAll([[4, 'exhausted once more']]);
  expect(await ids('exhausted')).toHaveLength(4);
  expect(legs).toBe(4);
  expect(await ids('exhausted')).toHaveLength(4);
  expect(legs).toBe(4);
});

it('fails a hybrid search whose lexical leg fails while the semantic leg runs, and leaves no rejection unhandled', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const down = Object.assign(new Error('The database is unavailable; retry shortly.'), { code: 'unavailable' });
    const failing: Store = Object.create(store, {
      capabilities: { value: { ...store.capabilities, vectors: { available: true } } },
      search: {
        value: {
          lexical: async () => Promise.reject(down),
          allTermsCount: async () => Promise.reject(down),
          // The semantic leg is still running when the lexical one fails.
          semantic: () => new Promise((resolve) => setTimeout(() => resolve([]), 30)),
        },
      },
    });
    const embedder = { model: 'stub', source: 'test', remedy: '', embed: async (texts: readonly string[]) => texts.map(() => new Float32Array([1, 0])) };
    const s = new Searcher({ store: failing, clock, limits, log: createLogger('silent'), embedder, semanticBudgetMs: 1000, topicCounts: (l, slugs) => store.objects.topicCounts(l, slugs) });
    await expect(s.search({ q: 'connection pool', mode: 'hybrid', limit: 10 })).rejects.toBe(down);
    await new Promise((r) => setImmediate(r));
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
