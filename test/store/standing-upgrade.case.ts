/**
 * A board as it was before stored standing (SQLite migration 10, PostgreSQL migration 2):
 * the rows each store's upgrade test writes in the old schema, and what must hold after it.
 */
import { expect } from 'vitest';
import type { Store } from '../../src/ports/store.js';

/** A reputable author's live object, then a disputed, a hidden and an expired one, all on topic `x`. */
export const oldRows = (now: number) =>
  [
    { id: '01J0000000000000000000000A', author: 'star', trust: 'reputable', base: 'signed', v: 0, c: 0, hidden: false, expires: now + 60_000 },
    { id: '01J0000000000000000000000B', author: null, trust: null, base: null, v: 1, c: 3, hidden: false, expires: now + 60_000 },
    { id: '01J0000000000000000000000C', author: null, trust: null, base: null, v: 0, c: 0, hidden: true, expires: now + 60_000 },
    { id: '01J0000000000000000000000D', author: null, trust: null, base: null, v: 0, c: 0, hidden: false, expires: now - 1 },
  ] as const;

/** Migrates the old board and checks its live set, topic counts and shown trust. */
export async function expectUpgraded(store: Store, now: number): Promise<void> {
  await store.migrate();
  // The live one and the expired one (whose standing is its expiry); the hidden and disputed stay at 0.
  expect(await store.objects.restate(2)).toBe(2);
  const live = { now, disputeMinContradictions: 2 };
  expect((await store.objects.list({ live, limit: 10 })).map((o) => o.id)).toEqual(['01J0000000000000000000000A']);
  expect(await store.objects.topicCounts(live, ['x'])).toEqual([{ slug: 'x', count: 1 }]);
  expect((await store.objects.get('01J0000000000000000000000A', live))!.author?.trustLevel).toBe('reputable');
  await store.identity.setReputable('star', false, now);
  expect((await store.objects.get('01J0000000000000000000000A', live))!.author?.trustLevel).toBe('signed');
}
