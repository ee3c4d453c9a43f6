/**
 * The Store contract: every adapter runs this suite through its own runner file
 * (`runStoreContract({ name, makeStore })`). A behaviour is done only when it holds here.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventOf } from '../../src/domain/events.js';
import { vectorWantedUntil } from '../../src/domain/state.js';
import type { ObjectType } from '../../src/domain/model.js';
import type { LiveCriteria } from '../../src/domain/model.js';
import { ManualClock } from '../../src/clock.js';
import { UlidGenerator } from '../../src/domain/ulid.js';
import { BulkRowError, type BulkObject, type NewObject } from '../../src/ports/object-store.js';
import type { Store } from '../../src/ports/store.js';
import type { ProbeOutcome, RegistryEntry } from '../../src/domain/registry.js';
import { ON_CI } from '../helpers/ci.js';
import { publishObject } from '../helpers/publish.js';
import { spacesContract } from './spaces.case.js';

export interface StoreContractOptions {
  name: string;
  makeStore: () => Promise<{ store: Store; dispose: () => Promise<void> }>;
}

async function* batches(...list: BulkObject[][]) {
  for (const b of list) yield b;
}

const T0 = Date.parse('2026-04-01T00:00:00.000Z');
const DAY = 86_400_000;

export function runStoreContract({ name, makeStore }: StoreContractOptions): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    let clock: ManualClock;
    let ids: UlidGenerator;
    const live = (): LiveCriteria => ({ now: clock.now(), disputeMinContradictions: 2 });

    let n = 0;
    const obj = (patch: Partial<NewObject> = {}): NewObject => {
      n++;
      return {
        id: ids.next(),
        type: 'finding',
        title: `Title ${n}`,
        content: `Content number ${n}`,
        topics: ['alpha'],
        sourceUrl: null,
        parentId: null,
        author: null,
        createdAt: clock.now(),
        expiresAt: clock.now() + 30 * DAY,
        injectionSuspected: false,
        dedupeKey: `key-${n}`,
        ...patch,
      };
    };
    const insert = async (patch: Partial<NewObject> = {}) => (await publishObject(store, obj(patch), live())).object;

    beforeEach(async () => {
      clock = new ManualClock(T0);
      ids = new UlidGenerator(clock);
      ({ store, dispose } = await makeStore());
      await store.migrate();
    });
    afterEach(async () => dispose());

    it('migrates idempotently and answers ping', async () => {
      await store.migrate();
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('round-trips every field', async () => {
      const o = obj({
        type: 'artifact',
        title: 'T',
        content: 'C ünïcødé 😀',
        topics: ['a-b', 'c'],
        sourceUrl: 'https://example.org/x',
        author: { id: 'kid1', trustLevel: 'signed', domain: null },
        injectionSuspected: true,
      });
      const { object, created } = await publishObject(store, o, live());
      expect(created).toBe(true);
      const got = await store.objects.get(o.id, live());
      expect(got).toEqual(object);
      expect(got).toMatchObject({
        id: o.id,
        type: 'artifact',
        title: 'T',
        content: 'C ünïcødé 😀',
        topics: ['a-b', 'c'],
        sourceUrl: 'https://example.org/x',
        parentId: null,
        author: { id: 'kid1', trustLevel: 'signed', domain: null },
        createdAt: T0,
        expiresAt: T0 + 30 * DAY,
        lastVerifiedAt: null,
        verificationCount: 0,
        contradictionCount: 0,
        replyCount: 0,
        hidden: false,
        withdrawn: false,
        injectionSuspected: true,
      });
      expect(await store.objects.get('01ZZZZZZZZZZZZZZZZZZZZZZZZ', live())).toBeNull();
    });

    it('keeps imported counts', async () => {
      const o = await insert({ verificationCount: 7, contradictionCount: 1, lastVerifiedAt: T0 - DAY });
      expect(o).toMatchObject({ verificationCount: 7, contradictionCount: 1, lastVerifiedAt: T0 - DAY });
    });

    describe('dedupe', () => {
      it('returns the live object with the same key instead of inserting', async () => {
        const first = await insert({ dedupeKey: 'same' });
        const again = await publishObject(store, obj({ dedupeKey: 'same' }), live());
        expect(again.created).toBe(false);
        expect(again.object.id).toBe(first.id);
        expect(await store.objects.list({ live: live(), limit: 10 })).toHaveLength(1);
      });
      it('inserts anew once the earlier one is no longer live', async () => {
        const first = await insert({ dedupeKey: 'same', expiresAt: T0 + 1000 });
        clock.advance(2000);
        const again = await publishObject(store, obj({ dedupeKey: 'same' }), live());
        expect(again.created).toBe(true);
        expect(again.object.id).not.toBe(first.id);
      });
      it('holds under concurrency: 8 racing identical inserts create one object', async () => {
        const results = await Promise.all(Array.from({ length: 8 }, () => publishObject(store, obj({ dedupeKey: 'race' }), live())));
        expect(results.filter((r) => r.created)).toHaveLength(1);
        expect(new Set(results.map((r) => r.object.id)).size).toBe(1);
        // One event: the one publish that created the object.
        expect((await store.events.after(0, 100)).map((e) => e.objectId)).toEqual([results[0]!.object.id]);
      });
    });

    describe('publish', () => {
      it('appends the created event with the object, and none for a duplicate answered instead', async () => {
        const first = obj({ dedupeKey: 'k', topics: ['a', 'b'] });
        await publishObject(store, first, live());
        await publishObject(store, obj({ dedupeKey: 'k' }), live());
        const events = await store.events.after(0, 10);
        expect(events).toEqual([{ seq: events[0]!.seq, kind: 'created', objectId: first.id, type: 'finding', topics: ['a', 'b'], threadId: first.id, at: T0, space: null }]);
      });

      it('lands concurrent publishes in the order asked, their events too', async () => {
        const rows = Array.from({ length: 20 }, () => obj());
        const results = await Promise.all(rows.map((o) => publishObject(store, o, live())));
        expect(results.every((r) => r.created)).toBe(true);
        expect(results.map((r) => r.object)).toEqual(rows.map((o) => expect.objectContaining({ id: o.id, title: o.title, content: o.content, replyCount: 0 })));
        const events = await store.events.after(0, 100);
        expect(events.map((e) => e.objectId)).toEqual(rows.map((o) => o.id));
        expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
        expect((await store.objects.list({ live: live(), limit: 50 })).map((o) => o.id)).toEqual(rows.map((o) => o.id).reverse());
      });

      it('refuses a publish the store cannot take without failing those made with it', async () => {
        const taken = obj();
        await publishObject(store, taken, live());
        const clash = obj({ id: taken.id });
        const others = [obj(), obj()];
        const [a, refused, b] = await Promise.allSettled([publishObject(store, others[0]!, live()), publishObject(store, clash, live()), publishObject(store, others[1]!, live())]);
        expect(refused.status).toBe('rejected');
        expect([a.status, b.status]).toEqual(['fulfilled', 'fulfilled']);
        expect((await store.events.after(0, 100)).map((e) => e.objectId)).toEqual([taken.id, others[0]!.id, others[1]!.id]);
        expect((await store.objects.get(taken.id, live()))?.title).toBe(taken.title);
      });
    });

    describe('objects.list', () => {
      it('lists newest first and pages strictly below the cursor', async () => {
        const made = [];
        for (let i = 0; i < 5; i++) made.push(await insert());
        const all = await store.objects.list({ live: live(), limit: 10 });
        expect(all.map((o) => o.id)).toEqual(made.map((o) => o.id).reverse());
        const after = await store.objects.list({ live: live(), before: made[3]!.id, limit: 10 });
        expect(after.map((o) => o.id)).toEqual([made[2]!.id, made[1]!.id, made[0]!.id]);
        expect(await store.objects.list({ live: live(), limit: 2 })).toHaveLength(2);
      });

      it('returns live objects only', async () => {
        const keep = await insert();
        await insert({ expiresAt: T0 + 1 });
        const hidden = await insert();
        await store.objects.setHidden(hidden.id, true, live());
        const withdrawn = await insert();
        await store.objects.setWithdrawn(withdrawn.id, live());
        const disputed = await insert({ contradictionCount: 2 });
        const tie = await insert({ contradictionCount: 2, verificationCount: 2 });
        clock.advance(10);
        const got = (await store.objects.list({ live: live(), limit: 10 })).map((o) => o.id);
        expect(got).toEqual([tie.id, keep.id]);
        expect(got).not.toContain(disputed.id);
      });

      it('filters by types, parent and topic', async () => {
        const root = await insert({ topics: ['alpha', 'beta'] });
        const req = await insert({ type: 'request', topics: ['beta'] });
        const reply = await insert({ type: 'response', parentId: root.id, topics: ['beta'] });
        const ids = async (q: object) => (await store.objects.list({ live: live(), limit: 10, ...q })).map((o) => o.id);
        expect(await ids({ types: ['request'] })).toEqual([req.id]);
        expect(await ids({ types: ['finding', 'request'] satisfies ObjectType[] })).toEqual([req.id, root.id]);
        expect(await ids({ parentId: null })).toEqual([req.id, root.id]);
        expect(await ids({ parentId: root.id })).toEqual([reply.id]);
        expect(await ids({ topic: 'beta', parentId: null })).toEqual([req.id, root.id]);
        expect(await ids({ topic: 'beta' })).toEqual([reply.id, req.id, root.id]);
        expect(await ids({ topic: 'alpha', types: ['request'] })).toEqual([]);
      });

      it('counts live replies only', async () => {
        const root = await insert();
        await insert({ type: 'response', parentId: root.id });
        await insert({ type: 'response', parentId: root.id, expiresAt: T0 + 5 });
        const hidden = await insert({ type: 'response', parentId: root.id });
        await store.objects.setHidden(hidden.id, true, live());
        clock.advance(10);
        expect((await store.objects.get(root.id, live()))!.replyCount).toBe(1);
        expect((await store.objects.list({ live: live(), parentId: null, limit: 5 }))[0]!.replyCount).toBe(1);
      });
    });

    describe('votes', () => {
      it('counts one vote per voter, ignores repeats and moves a changed vote', async () => {
        const o = await insert();
        const v = (voterId: string, kind: 'verify' | 'contradict') =>
          store.votes.cast({ objectId: o.id, voterId, kind, note: null, evidenceUrl: null }, live());
        const a = await v('a', 'verify');
        expect(a).toMatchObject({ changed: true, object: { verificationCount: 1, contradictionCount: 0, lastVerifiedAt: T0 } });
        clock.advance(1000);
        const again = await v('a', 'verify');
        expect(again).toMatchObject({ changed: false, object: { verificationCount: 1, lastVerifiedAt: T0 } });
        await v('b', 'verify');
        const moved = await v('a', 'contradict');
        expect(moved).toMatchObject({ changed: true, object: { verificationCount: 1, contradictionCount: 1 } });
        const back = await v('a', 'verify');
        expect(back).toMatchObject({ changed: true, object: { verificationCount: 2, contradictionCount: 0, lastVerifiedAt: T0 + 1000 } });
      });
      it('says which verification is a voter’s first on the object, ever', async () => {
        const o = await insert();
        const v = async (voterId: string, kind: 'verify' | 'contradict') =>
          (await store.votes.cast({ objectId: o.id, voterId, kind, note: null, evidenceUrl: null }, live()))!.firstVerification;
        expect([await v('a', 'verify'), await v('a', 'verify'), await v('a', 'contradict'), await v('a', 'verify'), await v('b', 'contradict'), await v('b', 'verify')]).toEqual([
          true,
          false,
          false,
          false,
          false,
          true,
        ]);
      });
      it('answers null for an unknown object', async () => {
        expect(await store.votes.cast({ objectId: '01ZZZZZZZZZZZZZZZZZZZZZZZZ', voterId: 'a', kind: 'verify', note: null, evidenceUrl: null }, live())).toBeNull();
      });
    });

    it('moves an expiry, and the object’s standing with it', async () => {
      const o = await insert();
      const later = clock.now() + 90 * DAY;
      expect((await store.objects.setExpiry(o.id, later, live()))!.expiresAt).toBe(later);
      clock.advance(60 * DAY);
      expect((await store.objects.list({ live: live(), limit: 5 })).map((x) => x.id)).toEqual([o.id]);
      await store.objects.setExpiry(o.id, clock.now(), live());
      expect(await store.objects.list({ live: live(), limit: 5 })).toEqual([]);
      expect(await store.objects.setExpiry('01ZZZZZZZZZZZZZZZZZZZZZZZZ', later, live())).toBeNull();
    });

    it('answers the next instant a live object expires, by time alone', async () => {
      expect(await store.objects.nextExpiry(clock.now())).toBeNull();
      const soon = await insert({ expiresAt: clock.now() + DAY });
      await insert({ expiresAt: clock.now() + 3 * DAY });
      const hidden = await insert({ expiresAt: clock.now() + DAY / 2 });
      await store.objects.setHidden(hidden.id, true, live());
      // A hidden object is not live: its expiry moves nothing.
      expect(await store.objects.nextExpiry(clock.now())).toBe(soon.expiresAt);
      expect(await store.objects.nextExpiry(soon.expiresAt)).toBe(clock.now() + 3 * DAY);
      expect(await store.objects.nextExpiry(clock.now() + 3 * DAY)).toBeNull();
    });

    it('moves its change mark with every write, and only then', async () => {
      const m0 = await store.changeMark();
      expect(m0).not.toBeNull();
      await store.objects.list({ live: live(), limit: 5 });
      await store.objects.nextExpiry(clock.now());
      // The embedding worker's poll of an empty queue locks no row and writes nothing.
      expect(await store.embeddings.claim(live(), 10, 60_000)).toEqual([]);
      expect(await store.changeMark()).toBe(m0);
      const o = await insert();
      const m1 = await store.changeMark();
      expect(m1).not.toBe(m0);
      await store.withTransaction('scope', async (tx) => {
        await tx.objects.setHidden(o.id, true, live());
      });
      expect(await store.changeMark()).not.toBe(m1);
      const p = await insert();
      const m3 = await store.changeMark();
      expect(await store.votes.cast({ objectId: p.id, voterId: 'v1', kind: 'verify', note: null, evidenceUrl: null }, live())).not.toBeNull();
      expect(await store.changeMark()).not.toBe(m3);
    });

    it('reads several objects at once, in any state, leaving unknown ids out', async () => {
      const a = await insert();
      const b = await insert();
      await store.objects.setHidden(b.id, true, live());
      const got = await store.objects.getMany([b.id, a.id, '01ZZZZZZZZZZZZZZZZZZZZZZZZ', a.id], live());
      expect(got.map((o) => o.id).sort()).toEqual([a.id, b.id].sort());
      expect(got.find((o) => o.id === b.id)).toMatchObject({ hidden: true, content: b.content });
      expect(await store.objects.getMany([], live())).toEqual([]);
    });

    it('hides, unhides and withdraws', async () => {
      const o = await insert();
      expect((await store.objects.setHidden(o.id, true, live()))!.hidden).toBe(true);
      expect((await store.objects.setHidden(o.id, false, live()))!.hidden).toBe(false);
      expect((await store.objects.setWithdrawn(o.id, live()))!.withdrawn).toBe(true);
      expect(await store.objects.setHidden('01ZZZZZZZZZZZZZZZZZZZZZZZZ', true, live())).toBeNull();
    });

    it('supersedes once: the old object stops being live, keeps its words, and no second or withdrawn supersede applies', async () => {
      const old = await insert({ topics: ['alpha', 'beta'] });
      const gone = await insert();
      await store.objects.setWithdrawn(gone.id, live());
      const next = obj({ supersedes: old.id, topics: ['alpha'] });
      const made = await store.withTransaction('scope', async (tx) => {
        const replaced = await tx.objects.setSuperseded(old.id, next.id, live());
        return { replaced, inserted: await tx.objects.insert(next, live()) };
      });
      expect(made.replaced).toMatchObject({ id: old.id, supersededBy: next.id, content: old.content });
      expect(made.inserted).toMatchObject({ id: next.id, supersedes: old.id, supersededBy: null });
      expect(await store.objects.get(next.id, live())).toMatchObject({ supersedes: old.id, supersededBy: null, replyCount: 0 });
      expect((await store.objects.list({ live: live(), limit: 10 })).map((o) => o.id)).toEqual([next.id]);
      expect(await store.objects.topicCounts(live(), ['alpha', 'beta'])).toEqual([{ slug: 'alpha', count: 1 }]);
      expect(await store.objects.setSuperseded(old.id, 'another', live())).toBeNull();
      expect(await store.objects.setSuperseded(gone.id, next.id, live())).toBeNull();
      expect(await store.objects.setSuperseded('01ZZZZZZZZZZZZZZZZZZZZZZZZ', next.id, live())).toBeNull();
      expect((await store.objects.get(old.id, live()))!.supersededBy).toBe(next.id);
      expect((await store.objects.get(gone.id, live()))!.supersededBy).toBeNull();
    });

    it('reads the live corrections voters named for an object, most named first, with every read of it', async () => {
      const wrong = await insert();
      const right = await insert();
      const other = await insert();
      const gone = await insert();
      const cast = (voterId: string, correctionId: string | null) =>
        store.votes.cast({ objectId: wrong.id, voterId, kind: 'contradict', note: null, evidenceUrl: null, correctionId }, live());
      expect((await cast('v1', other.id))!.object.corrections).toEqual([{ id: other.id, voters: 1 }]);
      await cast('v2', right.id);
      await cast('v3', right.id);
      await cast('v4', gone.id);
      await cast('v5', null);
      const expected = [
        { id: right.id, voters: 2 },
        { id: gone.id, voters: 1 },
        { id: other.id, voters: 1 },
      ].sort((a, b) => b.voters - a.voters || (a.id < b.id ? -1 : 1));
      expect((await store.objects.get(wrong.id, live()))!.corrections).toEqual(expected);
      await store.objects.setWithdrawn(gone.id, live());
      const read = [(await store.objects.get(wrong.id, live()))!, ...(await store.objects.getMany([wrong.id], live())), ...(await store.objects.list({ live: live(), limit: 10 })).filter((o) => o.id === wrong.id)];
      for (const o of read) expect(o.corrections).toEqual(expected.filter((k) => k.id !== gone.id));
      expect((await store.objects.get(right.id, live()))!.corrections).toEqual([]);
      expect((await store.votes.list(wrong.id, { limit: 10 })).map((v) => v.correctionId).filter(Boolean).sort()).toEqual([gone.id, other.id, right.id, right.id].sort());
    });

    it('quarantines a source once, settles its objects and votes in batches, and a lift gives back exactly what it took', async () => {
      const k1 = { id: 'k1', trustLevel: 'signed' as const, domain: null };
      const k2 = { id: 'k2', trustLevel: 'signed' as const, domain: 'example.org' };
      const mine = [await insert({ author: k1 }), await insert({ author: k1 }), await insert({ author: k1 })];
      const theirs = await insert({ author: k2 });
      const cast = (voterId: string, kind: 'verify' | 'contradict') => store.votes.cast({ objectId: theirs.id, voterId, kind, note: null, evidenceUrl: null }, live());
      await cast('k1', 'verify');
      await cast('v2', 'verify');
      await cast('v3', 'contradict');
      const source = { keyid: 'k1', domain: null };
      const opened = await store.moderation.open({ id: ids.next(), source, reason: 'spam', at: clock.now() });
      expect(opened).toMatchObject({ created: true, record: { source, reason: 'spam', liftedAt: null, affected: 0 } });
      const again = await store.moderation.open({ id: ids.next(), source, reason: 'again', at: clock.now() });
      expect([again.created, again.record.id]).toEqual([false, opened.record.id]);
      // Asked at once for another source, one of them applies it.
      const racing = await Promise.all([1, 2, 3].map(() => store.moderation.open({ id: ids.next(), source: { keyid: null, domain: 'racing.example' }, reason: 'race', at: clock.now() })));
      expect(racing.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(racing.map((r) => r.record.id)).size).toBe(1);
      expect(await store.moderation.isQuarantined('k1', null)).toBe(true);
      expect(await store.moderation.isQuarantined('k2', 'example.org')).toBe(false);
      const settle = () => store.withTransaction('q', async (tx) => (await tx.moderation.settleObjects(source, 2, 2)).map((t) => t.id));
      expect([...(await settle()), ...(await settle()), ...(await settle())].sort()).toEqual(mine.map((o) => o.id).sort());
      expect(await settle()).toEqual([]);
      expect((await store.objects.list({ live: live(), limit: 10 })).map((o) => o.id)).toEqual([theirs.id]);
      expect(await store.objects.get(mine[0]!.id, live())).toMatchObject({ quarantined: true, hidden: false });
      const votes = await store.withTransaction('q', (tx) => tx.moderation.settleVotes(source, 10, 2));
      expect([votes.votes, votes.targets.map((t) => t.id)]).toEqual([1, [theirs.id]]);
      expect(await store.objects.get(theirs.id, live())).toMatchObject({ verificationCount: 1, contradictionCount: 1 });
      // A vote that slips past the check moves no count while quarantined; its weight comes back, as it then stands, with the lift.
      expect((await cast('k1', 'contradict'))!.object).toMatchObject({ verificationCount: 1, contradictionCount: 1 });
      // A write that slips past the check is stored quarantined, never live.
      const late = await insert({ author: k1 });
      expect(await store.objects.get(late.id, live())).toMatchObject({ quarantined: true });
      expect(await store.moderation.markLifted(opened.record.id, clock.now())).toBe(true);
      expect(await store.moderation.markLifted(opened.record.id, clock.now())).toBe(false);
      expect(await store.moderation.isQuarantined('k1', null)).toBe(false);
      await store.withTransaction('q', (tx) => tx.moderation.settleObjects(source, 10, 2));
      await store.withTransaction('q', (tx) => tx.moderation.settleVotes(source, 10, 2));
      expect(await store.objects.get(theirs.id, live())).toMatchObject({ verificationCount: 1, contradictionCount: 2 });
      expect((await store.objects.list({ live: live(), limit: 10 })).length).toBe(4);
      await store.moderation.countAffected(opened.record.id, 4);
      expect((await store.moderation.get(opened.record.id))!.affected).toBe(4);
      await store.withTransaction('q', async (tx) => {
        await tx.moderation.log({ action: 'quarantine', target: 'keyid:k1', reason: 'spam', affected: 4, at: clock.now() });
        await tx.moderation.log({ action: 'lift', target: 'keyid:k1', reason: 'spam', affected: 4, at: clock.now() });
      });
      const audit = await store.moderation.audit({ limit: 1 });
      expect(audit.map((e) => e.action)).toEqual(['lift']);
      expect((await store.moderation.audit({ before: audit[0]!.seq, limit: 5 })).map((e) => e.action)).toEqual(['quarantine']);
      await store.moderation.quiesce(1000);
    });

    it('rolls the supersede back whole when the transaction fails', async () => {
      const old = await insert();
      const next = obj({ supersedes: old.id });
      await expect(
        store.withTransaction('scope', async (tx) => {
          await tx.objects.setSuperseded(old.id, next.id, live());
          await tx.objects.insert(next, live());
          throw new Error('abandoned');
        }),
      ).rejects.toThrow('abandoned');
      expect((await store.objects.get(old.id, live()))!.supersededBy).toBeNull();
      expect(await store.objects.get(next.id, live())).toBeNull();
      expect((await store.objects.list({ live: live(), limit: 10 })).map((o) => o.id)).toEqual([old.id]);
    });

    describe('standing', () => {
      const listed = async () => (await store.objects.list({ live: live(), limit: 10 })).map((o) => o.id);
      const alpha = async () => (await store.objects.topicCounts(live(), ['alpha']))[0]?.count ?? 0;

      it('re-derives every object when the dispute threshold changes, once per threshold', async () => {
        const contested = await insert();
        const calm = await insert();
        await store.votes.cast({ objectId: contested.id, voterId: 'a', kind: 'contradict', note: null, evidenceUrl: null }, live());
        expect(await store.objects.restate(2)).toBe(0);
        expect(await listed()).toEqual([calm.id, contested.id]);
        // One contradiction now disputes it: gone from listings and topic counts, not deleted.
        expect(await store.objects.restate(1)).toBe(1);
        expect(await listed()).toEqual([calm.id]);
        expect(await alpha()).toBe(1);
        expect(await store.objects.get(contested.id, live())).toMatchObject({ contradictionCount: 1 });
        expect(await store.objects.restate(1)).toBe(0);
        expect(await store.objects.restate(2)).toBe(1);
        expect(await listed()).toEqual([calm.id, contested.id]);
        expect(await alpha()).toBe(2);
      });

      it('derives the standing of imported rows from their states and counts', async () => {
        const row = (patch: Partial<NewObject> & { hidden?: boolean; withdrawn?: boolean } = {}) => ({ hidden: false, withdrawn: false, ...obj(patch) });
        const ok = row({ contradictionCount: 2, verificationCount: 2 });
        const disputed = row({ contradictionCount: 3, verificationCount: 1 });
        const withdrawn = row({ withdrawn: true });
        const expired = row({ expiresAt: clock.now() });
        expect(await store.objects.bulkImport(batches([ok, disputed, withdrawn, expired]), live())).toBe(4);
        expect(await listed()).toEqual([ok.id]);
        expect(await alpha()).toBe(1);
      });
    });

    describe('topics', () => {
      beforeEach(async () => {
        for (let i = 0; i < 6; i++) await insert({ topics: ['busy', 'shared'] });
        for (let i = 0; i < 5; i++) await insert({ topics: ['also-busy'] });
        for (let i = 0; i < 5; i++) await insert({ topics: ['quiet', 'shared'], expiresAt: T0 + 1 });
        await insert({ topics: ['rare', 'busy'] });
        clock.advance(10);
      });
      it('lists topics with at least the threshold of live objects, count desc then slug', async () => {
        expect(await store.objects.topTopics(live(), 5, 50)).toEqual([
          { slug: 'busy', count: 7 },
          { slug: 'shared', count: 6 },
          { slug: 'also-busy', count: 5 },
        ]);
        expect(await store.objects.topTopics(live(), 5, 1)).toEqual([{ slug: 'busy', count: 7 }]);
      });
      it('counts follow votes, hiding, unhiding and withdrawal', async () => {
        const count = async () => (await store.objects.topicCounts(live(), ['tracked']))[0]?.count ?? 0;
        const a = await insert({ topics: ['tracked'] });
        const b = await insert({ topics: ['tracked'] });
        expect(await count()).toBe(2);
        const vote = (voterId: string, kind: 'verify' | 'contradict') =>
          store.votes.cast({ objectId: a.id, voterId, kind, note: null, evidenceUrl: null }, live());
        await vote('v1', 'contradict');
        await vote('v2', 'contradict');
        expect(await count()).toBe(1);
        await vote('v3', 'verify');
        await vote('v4', 'verify');
        expect(await count()).toBe(2);
        await store.objects.setHidden(b.id, true, live());
        expect(await count()).toBe(1);
        await store.objects.setHidden(b.id, false, live());
        expect(await count()).toBe(2);
        await store.objects.setWithdrawn(b.id, live());
        expect(await count()).toBe(1);
        expect((await store.objects.topTopics(live(), 1, 100)).find((t) => t.slug === 'tracked')).toEqual({ slug: 'tracked', count: 1 });
      });
      it('counts given slugs and finds co-occurring and similar topics', async () => {
        expect(await store.objects.topicCounts(live(), ['rare', 'quiet', 'busy'])).toEqual([
          { slug: 'busy', count: 7 },
          { slug: 'rare', count: 1 },
        ]);
        expect(await store.objects.coTopics(live(), 'busy', 10)).toEqual([
          { slug: 'shared', count: 6 },
          { slug: 'rare', count: 1 },
        ]);
        expect(await store.objects.topicsLike(live(), ['bus', 'x'], 10)).toEqual([
          { slug: 'busy', count: 7 },
          { slug: 'also-busy', count: 5 },
        ]);
      });
    });

    describe('search.lexical', () => {
      it('finds live objects by terms, title weighing over content, with filters', async () => {
        const inContent = await insert({ title: 'Unrelated', content: 'the pool is exhausted under load' });
        const inTitle = await insert({ title: 'Pool exhausted', content: 'nothing else here', topics: ['pg'] });
        await insert({ title: 'Pool exhausted too', content: 'but expired', expiresAt: T0 + 1 });
        const req = await insert({ type: 'request', title: 'Why is the pool exhausted?', content: 'asking', topics: ['pg'] });
        clock.advance(10);
        const q = (extra: object = {}) => store.search.lexical({ live: live(), terms: ['pool', 'exhausted'], limit: 10, ...extra });
        const hits = await q();
        expect(hits.map((h) => h.id)).toHaveLength(3);
        const rel = (id: string) => hits.find((h) => h.id === id)!.relevance;
        expect(rel(inTitle.id)).toBeGreaterThan(rel(inContent.id));
        expect((await q({ types: ['request'] })).map((h) => h.id)).toEqual([req.id]);
        expect((await q({ topics: ['pg'], types: ['finding'] })).map((h) => h.id)).toEqual([inTitle.id]);
        expect(await store.search.lexical({ live: live(), terms: [], limit: 10 })).toEqual([]);
      });
      it('reports which candidates hold every term and which hold the phrase', async () => {
        const phrase = await insert({ title: 'x', content: 'the pool exhausted again' });
        const both = await insert({ title: 'x', content: 'exhausted: the pool' });
        const one = await insert({ title: 'x', content: 'a pool party' });
        const hits = await store.search.lexical({ live: live(), terms: ['pool', 'exhausted'], limit: 10 });
        const flags = (id: string) => {
          const h = hits.find((x) => x.id === id)!;
          return [h.allTerms, h.phrase];
        };
        expect(flags(phrase.id)).toEqual([true, true]);
        expect(flags(both.id)).toEqual([true, false]);
        expect(flags(one.id)).toEqual([false, false]);
        // A phrase hit brings its words for the verbatim comparison; the others bring none.
        expect(hits.find((h) => h.id === phrase.id)!.text).toEqual({ title: 'x', content: 'the pool exhausted again' });
        expect(hits.find((h) => h.id === both.id)!.text).toBeUndefined();
        // Unmarked: the same hits and relevance, with neither mark worked out.
        const bare = await store.search.lexical({ live: live(), terms: ['pool', 'exhausted'], limit: 10, unmarked: true });
        expect(bare.map((h) => [h.id, h.relevance, h.allTerms, h.phrase, h.text])).toEqual(hits.map((h) => [h.id, h.relevance, false, false, undefined]));
      });
      it('counts the objects holding every term, stems or words as given, as far as asked', async () => {
        const count = (terms: string[], stemmed = false, upTo = 50) => store.search.allTermsCount({ terms, stemmed }, upTo);
        expect(await count(['pool', 'exhausted'])).toBe(0);
        expect(await count([])).toBe(0);
        await insert({ content: 'the pool exhausted again' });
        await insert({ content: 'exhausted: the pool' });
        await insert({ content: 'a pool party' });
        await insert({ content: 'pools exhausting', expiresAt: T0 + 1 });
        clock.advance(10);
        const holding = async (terms: string[], stemmed: boolean) => (await store.search.lexical({ live: live(), terms, limit: 50, allTerms: true, stemmed })).length;
        for (const stemmed of [false, true]) {
          for (const terms of [['pool', 'exhausted'], ['pool', 'party'], ['pool'], ['pool', 'nowhere']]) {
            expect(await count(terms, stemmed)).toBeGreaterThanOrEqual(await holding(terms, stemmed));
          }
        }
        // Exact where the index knows: the expired object's stems count (live or not)…
        expect(await count(['pool', 'exhausted'])).toBe(2);
        expect(await count(['pool', 'exhausted'], true)).toBe(3);
        expect(await count(['pool', 'nowhere'])).toBe(0);
        // …and never short of `upTo` when there are that many.
        expect(await count(['pool'], true, 2)).toBeGreaterThanOrEqual(2);
        expect(await count(['pool'], true, 2)).toBeLessThanOrEqual(4);
      });
      it("weighs a word by how many objects hold it as of the last write, whichever query counted it", async () => {
        const target = await insert({ content: 'zebra quartz' });
        for (let i = 0; i < 6; i++) await insert({ content: `zebra note ${i}` });
        const relevance = async (terms: string[]) => (await store.search.lexical({ live: live(), terms, limit: 20 })).find((h) => h.id === target.id)!.relevance;
        const before = await relevance(['zebra', 'quartz']);
        expect(await relevance(['quartz', 'zebra'])).toBeCloseTo(before, 9);
        // Quartz, rare so far, becomes common: a query of the same words in another order (whose
        // parse was never cached) must count it again, not take the count from before the writes.
        for (let i = 0; i < 6; i++) await insert({ content: `quartz note ${i}` });
        const after = await relevance(['quartz', 'zebra']);
        expect(after).toBeLessThan(before);
        expect(await relevance(['zebra', 'quartz'])).toBeCloseTo(after, 9);
      });
      it('finds the best live matches behind many better-scoring ones that are no longer live', async () => {
        // More expired matches than a store may rank ahead of its liveness check.
        for (let i = 0; i < 40; i++) await insert({ title: 'pool exhausted', content: `pool exhausted ${i}`, expiresAt: T0 + 1 });
        const live1 = await insert({ title: 'x', content: 'the pool exhausted once, under a long text that scores lower' });
        const live2 = await insert({ title: 'y', content: 'exhausted, then the pool again, under a long text that scores lower' });
        clock.advance(10);
        for (const allTerms of [true, false]) {
          const hits = await store.search.lexical({ live: live(), terms: ['pool', 'exhausted'], limit: 2, allTerms });
          expect(hits.map((h) => h.id).sort()).toEqual([live1.id, live2.id].sort());
        }
      });
      it("reads a phrase hit's text back exactly, whatever characters it holds", async () => {
        const title = 'Quote "pool" \\ back\\slash \'single\' </script>';
        const content = `pool exhausted\n\ttab \u0001 \u2028 \u{1F389} é ${'x'.repeat(3000)} "end"`;
        const o = await insert({ title, content, verificationCount: 2 });
        const [hit] = await store.search.lexical({ live: live(), terms: ['pool', 'exhausted'], limit: 10 });
        expect(hit).toMatchObject({ id: o.id, createdAt: o.createdAt, verificationCount: 2, contradictionCount: 0, allTerms: true, phrase: true });
        expect(hit!.text).toEqual({ title, content });
        expect(typeof hit!.relevance).toBe('number');
      });
      it('answers a candidate with the facts ranking reads', async () => {
        const o = await insert({ content: 'pool exhausted', verificationCount: 3, contradictionCount: 1 });
        const [hit] = await store.search.lexical({ live: live(), terms: ['pool'], limit: 10 });
        expect(hit).toMatchObject({ id: o.id, createdAt: o.createdAt, verificationCount: 3, contradictionCount: 1, allTerms: true, phrase: true });
      });
      it('keeps answering while the corpus outgrows the statistics it last read', async () => {
        await insert({ title: 'pool exhaustion', content: 'first' });
        const q = () => store.search.lexical({ live: live(), terms: ['pool', 'exhaustion'], allTerms: false, stemmed: false, limit: 10 });
        expect(await q()).toHaveLength(1);
        for (let i = 0; i < 4; i++) await insert({ title: 'pool exhaustion', content: `more ${i}` });
        expect(await q()).toHaveLength(5);
      });
      it('weighs a term by how many objects hold it as of the last write, not as of an earlier query', async () => {
        for (let i = 0; i < 10; i++) await insert({ content: `unrelated note ${i}` });
        const target = await insert({ content: 'the pool exhausted' });
        const q = async () => (await store.search.lexical({ live: live(), terms: ['pool', 'exhausted'], limit: 20 })).find((h) => h.id === target.id)!.relevance;
        const rare = await q();
        expect(await q()).toBe(rare);
        // "pool" becomes common: it must count for less in the same object.
        for (let i = 0; i < 5; i++) await insert({ content: `pool ${i}` });
        expect(await q()).toBeLessThan(rare);
      });
      it('scores terms that keep punctuation whole (addresses, compounds, quotes)', async () => {
        const o = await insert({ content: "see http://ex.com/a?b=c'd for the foo-bar fix" });
        await insert({ content: 'nothing to see' });
        const hits = await store.search.lexical({ live: live(), terms: ["ex.com/a?b=c'd", 'foo-bar'], limit: 10 });
        expect(hits.map((h) => h.id)).toEqual([o.id]);
        expect(hits[0]!.relevance).toBeGreaterThan(0);
        expect(hits[0]!.allTerms).toBe(true);
      });

      it('treats query syntax characters as plain text', async () => {
        await insert({ content: 'error "quoted" AND OR NOT near' });
        const hits = await store.search.lexical({ live: live(), terms: ['"quoted"', 'and', 'or', 'not', 'near*', '('], limit: 10 });
        expect(hits).toHaveLength(1);
      });
      it('ranks only the newest `window` live matches under the filters, however strong an older one', async () => {
        const strongest = await insert({ title: 'Pool pool pool', content: 'pool exhausted' });
        const older = await insert({ content: 'the pool is exhausted' });
        const newer = [];
        for (let i = 0; i < 3; i++) {
          clock.advance(1);
          newer.push(await insert({ content: `pool exhausted number ${i}` }));
        }
        clock.advance(1);
        await insert({ content: 'pool exhausted, expired', expiresAt: clock.now() + 1 });
        await insert({ type: 'request', content: 'pool exhausted?' });
        clock.advance(10);
        const ids = async (window: number | undefined, extra: object = {}) =>
          new Set((await store.search.lexical({ live: live(), terms: ['pool', 'exhausted'], limit: 10, window, types: ['finding'], ...extra })).map((h) => h.id));
        // The expired match and the request are not in the window: the newest three live findings are.
        expect(await ids(3)).toEqual(new Set(newer.map((o) => o.id)));
        expect(await ids(4)).toEqual(new Set([older.id, ...newer.map((o) => o.id)]));
        expect(await ids(3, { allTerms: true, stemmed: true })).toEqual(new Set(newer.map((o) => o.id)));
        // A window far smaller than the matches (a store may pick it apart from the rows then).
        expect(await ids(1)).toEqual(new Set([newer[2]!.id]));
        expect(await ids(1, { allTerms: true })).toEqual(new Set([newer[2]!.id]));
        const all = await store.search.lexical({ live: live(), terms: ['pool', 'exhausted'], limit: 10, types: ['finding'] });
        expect(all).toHaveLength(5);
        expect(all[0]!.id).toBe(strongest.id);
        // Ranked within the window as they rank among all matches.
        const windowed = await store.search.lexical({ live: live(), terms: ['pool', 'exhausted'], limit: 10, window: 4, types: ['finding'] });
        expect(windowed.map((h) => h.id)).toEqual(all.filter((h) => h.id !== strongest.id).map((h) => h.id));
      });
      it("windows an OR query term by term: a rare word's older matches are all in", async () => {
        const rare = await insert({ content: 'eaddrinuse on the port' });
        const common = [];
        for (let i = 0; i < 4; i++) {
          clock.advance(1);
          common.push(await insert({ content: `pool number ${i}` }));
        }
        clock.advance(10);
        const hits = await store.search.lexical({ live: live(), terms: ['pool', 'eaddrinuse'], limit: 10, window: 2 });
        // The rare word's one match, and the common word's newest two.
        expect(new Set(hits.map((h) => h.id))).toEqual(new Set([rare.id, common[3]!.id, common[2]!.id]));
        expect(hits[0]!.id).toBe(rare.id);
        // With room for every match of each word, the window holds every match, more than the room.
        expect(await store.search.lexical({ live: live(), terms: ['pool', 'eaddrinuse'], limit: 10, window: 4 })).toHaveLength(5);
      });
      it('matches accented text without accents', async () => {
        await insert({ content: 'Le café est fermé' });
        expect(await store.search.lexical({ live: live(), terms: ['cafe', 'ferme'], limit: 10 })).toHaveLength(1);
      });
    });

    describe('embedding queue and vectors', () => {
      const LEASE = 60_000;
      const unit = (...xs: number[]) => {
        const v = Float32Array.from(xs);
        const n = Math.hypot(...xs);
        return v.map((x) => x / n);
      };

      it('queues every new object; claims due live jobs; saved vectors leave the queue', async () => {
        const a = await insert({ title: 'A', content: 'alpha', topics: ['t-one'] });
        const b = await insert({ title: 'B', content: 'beta' });
        await insert({ content: 'gone', expiresAt: T0 + 1 });
        clock.advance(10);
        expect(await store.embeddings.size()).toBe(3);
        const jobs = await store.embeddings.claim(live(), 10, LEASE);
        // The expired one leaves the queue instead of being embedded.
        expect(jobs.map((j) => j.id)).toEqual([a.id, b.id]);
        expect(jobs[0]).toMatchObject({ title: 'A', content: 'alpha', topics: ['t-one'], attempts: 0 });
        await store.embeddings.save('m1', [
          { id: a.id, vector: unit(1, 0, 0) },
          { id: b.id, vector: null },
        ]);
        expect(await store.embeddings.size()).toBe(0);
      });

      it('leases claimed jobs: a second claim does not take them; failing or the lease ending gives them back', async () => {
        const a = await insert();
        const b = await insert();
        expect((await store.embeddings.claim(live(), 1, LEASE)).map((j) => j.id)).toEqual([a.id]);
        // Another worker (here or in another process) gets the next job, never the leased one.
        expect((await store.embeddings.claim(live(), 10, LEASE)).map((j) => j.id)).toEqual([b.id]);
        expect(await store.embeddings.claim(live(), 10, LEASE)).toEqual([]);
        // b's worker failed: b is due again after its backoff, lease ended.
        await store.embeddings.fail([b.id], 'model down', T0 + 1000);
        clock.advance(1000);
        expect((await store.embeddings.claim(live(), 10, LEASE)).map((j) => j.id)).toEqual([b.id]);
        // a's worker died: a comes back when its lease ends, and only then.
        clock.advance(LEASE - 1001);
        expect(await store.embeddings.claim(live(), 10, LEASE)).toEqual([]);
        clock.advance(1);
        expect((await store.embeddings.claim(live(), 10, LEASE)).map((j) => j.id)).toEqual([a.id]);
        // A start that forgets backoff does not break leases held by running workers.
        await store.embeddings.enqueueMissing('m1', live());
        expect(await store.embeddings.claim(live(), 10, LEASE)).toEqual([]);
      });

      it('reads past whole batches of dead jobs to the live ones behind them', async () => {
        for (let i = 0; i < 3; i++) await insert({ expiresAt: T0 + 1 });
        const alive = await insert();
        clock.advance(10);
        expect((await store.embeddings.claim(live(), 2, LEASE)).map((j) => j.id)).toEqual([alive.id]);
        expect(await store.embeddings.size()).toBe(1);
      });

      it('puts failed jobs back for later, counting attempts', async () => {
        const a = await insert();
        await store.embeddings.fail([a.id], 'model down', T0 + 60_000);
        expect(await store.embeddings.claim(live(), 10, LEASE)).toEqual([]);
        clock.advance(60_000);
        expect((await store.embeddings.claim(live(), 10, LEASE)).map((j) => [j.id, j.attempts])).toEqual([[a.id, 1]]);
      });

      it('keeps in the queue exactly the objects the domain rule says still want a vector', async () => {
        const kept = await insert();
        const hidden = await insert();
        const disputed = await insert({ contradictionCount: 3 });
        const withdrawn = await insert();
        const expired = await insert({ expiresAt: T0 + 5 });
        const superseded = await insert();
        await store.objects.setHidden(hidden.id, true, live());
        await store.objects.setWithdrawn(withdrawn.id, live());
        await store.objects.setSuperseded(superseded.id, kept.id, live());
        clock.advance(10);
        const all = await Promise.all([kept, hidden, disputed, withdrawn, expired, superseded].map(async (o) => (await store.objects.get(o.id, live()))!));
        const wanted = all.filter((o) => vectorWantedUntil(o) > clock.now()).map((o) => o.id);
        expect(wanted).toEqual([kept.id, hidden.id, disputed.id]);
        expect((await store.embeddings.claim(live(), 10, LEASE)).map((j) => j.id).sort()).toEqual([...wanted].sort());
        // What claim dropped is not queued again by a backfill; what it leased stays.
        expect(await store.embeddings.size()).toBe(wanted.length);
        await store.embeddings.save('m1', wanted.map((id) => ({ id, vector: null })));
        expect(await store.embeddings.enqueueMissing('m2', live())).toBe(wanted.length);
      });

      it('backfills objects lacking a vector of the current model', async () => {
        const a = await insert();
        const b = await insert();
        await store.embeddings.save('m1', [
          { id: a.id, vector: unit(1, 0) },
          { id: b.id, vector: unit(0, 1) },
        ]);
        expect(await store.embeddings.enqueueMissing('m1', live())).toBe(0);
        expect(await store.embeddings.enqueueMissing('m2', live())).toBe(2);
      });

      /** Whether the store has a vector leg; when not, the test is skipped visibly, with its reason (CI must run it, so there it fails instead). */
      const withVectors = (ctx: { task: { name: string }; skip: () => void }): boolean => {
        const vectors = store.capabilities.vectors;
        if (vectors.available) return true;
        if (ON_CI) throw new Error(`the vector leg must run on CI: ${vectors.reason}`);
        console.warn(`skipped: ${ctx.task.name}: ${vectors.reason}`);
        ctx.skip();
        return false;
      };

      it('finds the nearest live objects of the model, exactly, under selective filters', async (ctx) => {
        if (!withVectors(ctx)) return;
        const near = await insert({ topics: ['x'] });
        const far = await insert({ topics: ['x'] });
        const req = await insert({ type: 'request', topics: ['rare'] });
        const dead = await insert({ expiresAt: T0 + 1 });
        const other = await insert();
        await store.embeddings.save('m1', [
          { id: near.id, vector: unit(1, 0.1, 0) },
          { id: far.id, vector: unit(0, 1, 0) },
          { id: req.id, vector: unit(-1, 0, 0) },
          { id: dead.id, vector: unit(1, 0, 0) },
        ]);
        await store.embeddings.save('m2', [{ id: other.id, vector: unit(1, 0, 0) }]);
        clock.advance(10);
        const q = (extra: object = {}) => store.search.semantic({ live: live(), vector: unit(1, 0, 0), model: 'm1', limit: 10, ...extra });
        const all = await q();
        expect(all.map((h) => h.id)).toEqual([near.id, far.id, req.id]);
        expect(all[0]!.similarity).toBeCloseTo(0.995, 2);
        expect(all[2]!.similarity).toBeCloseTo(-1, 5);
        // The farthest object is still found when the filter leaves only it.
        expect((await q({ types: ['request'], limit: 1 })).map((h) => h.id)).toEqual([req.id]);
        expect((await q({ topics: ['rare'], limit: 1 })).map((h) => h.id)).toEqual([req.id]);
        expect(await q({ limit: 1 })).toHaveLength(1);
      });

      it('stores a vector given with a publish instead of queueing the object: found by meaning at once, a duplicate keeping the first', async (ctx) => {
        if (!withVectors(ctx)) return;
        const withVector = (o: NewObject, ...xs: number[]) => store.publish(o, live(), eventOf('created', o, live().now), { model: 'm1', vector: unit(...xs) });
        const first = obj({ content: 'first', dedupeKey: 'same' });
        // Published together, as concurrent publishes are (one batch, where the store batches them).
        const [a, b, plain] = await Promise.all([withVector(first, 1, 0, 0), withVector(obj({ content: 'second' }), 0, 1, 0), publishObject(store, obj({ content: 'plain' }), live())]);
        expect([a.created, b.created, plain.created]).toEqual([true, true, true]);
        // Only the object published without one waits for a vector.
        expect(await store.embeddings.size()).toBe(1);
        expect((await store.embeddings.claim(live(), 10, LEASE)).map((j) => j.id)).toEqual([plain.object.id]);
        const near = await store.search.semantic({ live: live(), vector: unit(1, 0, 0), model: 'm1', limit: 10 });
        expect(near.map((h) => [h.id, Math.round(h.similarity * 1000) / 1000])).toEqual([
          [a.object.id, 1],
          [b.object.id, 0],
        ]);
        // A duplicate is answered with the first object; its vector is not stored.
        const again = await withVector({ ...first, id: ids.next() }, 0, 0, 1);
        expect(again).toMatchObject({ created: false, object: { id: a.object.id } });
        expect((await store.search.semantic({ live: live(), vector: unit(0, 0, 1), model: 'm1', limit: 10 })).find((h) => h.id === a.object.id)?.similarity).toBeCloseTo(0, 5);
        expect(await store.embeddings.size()).toBe(1);
      });

      it('answers each semantic query with the objects as they are now: after a hide, a restore, votes and an expiry, asked again and again', async (ctx) => {
        if (!withVectors(ctx)) return;
        const kept = await insert();
        const brief = await insert({ expiresAt: T0 + 60_000 });
        await store.embeddings.save('m1', [
          { id: kept.id, vector: unit(1, 0.1, 0) },
          { id: brief.id, vector: unit(1, 0.2, 0) },
        ]);
        const near = () => store.search.semantic({ live: live(), vector: unit(1, 0, 0), model: 'm1', limit: 10 });
        const ids = async () => (await near()).map((h) => h.id);
        // Asked twice: a store may answer the second from what the first read.
        expect(await ids()).toEqual([kept.id, brief.id]);
        expect(await ids()).toEqual([kept.id, brief.id]);
        await store.objects.setHidden(kept.id, true, live());
        expect(await ids()).toEqual([brief.id]);
        expect(await ids()).toEqual([brief.id]);
        await store.objects.setHidden(kept.id, false, live());
        expect(await ids()).toEqual([kept.id, brief.id]);
        // A vote moves the counts a hit carries.
        const counts = async () => (await near()).map((h) => [h.verificationCount, h.contradictionCount]);
        expect(await counts()).toEqual([[0, 0], [0, 0]]);
        await store.votes.cast({ objectId: kept.id, voterId: 'v', kind: 'verify', note: null, evidenceUrl: null }, live());
        await store.votes.cast({ objectId: brief.id, voterId: 'v', kind: 'contradict', note: null, evidenceUrl: null }, live());
        expect(await counts()).toEqual([[1, 0], [0, 1]]);
        expect(await counts()).toEqual([[1, 0], [0, 1]]);
        // Nothing written: time alone ends the brief one.
        clock.advance(60_000);
        expect(await ids()).toEqual([kept.id]);
      });
    });

    describe('bulk import and scan', () => {
      const row = (patch: Partial<NewObject> = {}) => ({ ...obj(patch), hidden: false, withdrawn: false });

      it('imports rows in one transaction, keeping states and counts, and scans them back in id order', async () => {
        const root = row({ verificationCount: 4, contradictionCount: 1 });
        const reply = row({ type: 'response', parentId: root.id });
        const hidden = { ...row(), hidden: true };
        expect(await store.objects.bulkImport(batches([root, reply], [hidden]), live())).toBe(3);
        const scanned = await store.objects.scan(null, 10, live());
        expect(scanned.map((o) => o.id)).toEqual([root.id, reply.id, hidden.id]);
        expect(scanned[0]).toMatchObject({ verificationCount: 4, contradictionCount: 1, replyCount: 1 });
        expect(scanned[2]).toMatchObject({ hidden: true, content: hidden.content });
        expect((await store.objects.scan(reply.id, 10, live())).map((o) => o.id)).toEqual([hidden.id]);
        // Imported objects wait for their vectors like published ones.
        expect(await store.embeddings.size()).toBe(3);
      });

      it('keeps nothing when the import fails part way, and names the refused row', async () => {
        const ok = row();
        const orphan = row({ type: 'response', parentId: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' });
        const refused = await store.objects.bulkImport(batches([ok], [orphan]), live()).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(BulkRowError);
        expect(refused).toMatchObject({ row: orphan, message: expect.stringMatching(/parent .* does not exist/) });
        expect(await store.objects.get(ok.id, live())).toBeNull();
        await expect(store.objects.bulkImport(batches([ok, { ...ok }]), live())).rejects.toThrow(/already exists/);
        const replyToReply = row({ type: 'response', parentId: ok.id });
        await expect(store.objects.bulkImport(batches([ok, replyToReply], [row({ type: 'response', parentId: replyToReply.id })]), live())).rejects.toThrow(/itself a reply/);
        // A source that fails part way rolls back what came before it.
        async function* failing() {
          yield [ok];
          throw new Error('the source broke');
        }
        await expect(store.objects.bulkImport(failing(), live())).rejects.toThrow(/source broke/);
        expect(await store.objects.scan(null, 10, live())).toEqual([]);
        // The store still takes writes afterwards.
        expect((await publishObject(store, obj(), live())).created).toBe(true);
      });
    });

    describe('transactions', () => {
      it('commits every write of the function, or none when it throws', async () => {
        const target = await insert();
        await store.withTransaction('scope', async (tx) => {
          await tx.votes.cast({ objectId: target.id, voterId: 'v', kind: 'verify', note: null, evidenceUrl: null }, live());
          await tx.events.append(eventOf('updated', target, clock.now()));
        });
        expect((await store.objects.get(target.id, live()))?.verificationCount).toBe(1);
        const { newest } = await store.events.bounds();
        await expect(
          store.withTransaction('scope', async (tx) => {
            await tx.objects.setHidden(target.id, true, live());
            await tx.events.append(eventOf('updated', target, clock.now()));
            await tx.identity.setReputable('someone', true, clock.now());
            throw new Error('changed my mind');
          }),
        ).rejects.toThrow(/changed my mind/);
        expect((await store.objects.get(target.id, live()))?.hidden).toBe(false);
        expect((await store.events.bounds()).newest).toBe(newest);
        expect(await store.identity.isReputable('someone')).toBe(false);
      });

      it('holds a locked author until the transaction ends', async () => {
        const order: string[] = [];
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let locked!: () => void;
        const isLocked = new Promise<void>((resolve) => (locked = resolve));
        // Scopes of different lanes on PostgreSQL: the lock, not a shared batch, orders them.
        const first = store.withTransaction('a', async (tx) => {
          await tx.identity.lockAuthor('author-l');
          locked();
          await held;
          order.push('first');
        });
        await isLocked;
        const second = store.withTransaction('b', async (tx) => {
          await tx.identity.lockAuthor('author-l');
          order.push('second');
        });
        await new Promise((resolve) => setTimeout(resolve, 50));
        release();
        await Promise.all([first, second]);
        expect(order).toEqual(['first', 'second']);
      });

      it('does not take in, or roll back, writes made outside it while it is open', async () => {
        const target = await insert();
        const other = obj();
        let opened!: () => void;
        const isOpen = new Promise<void>((resolve) => (opened = resolve));
        const tx = store.withTransaction('scope', async (t) => {
          await t.objects.setHidden(target.id, true, live());
          opened();
          await new Promise((resolve) => setTimeout(resolve, 30));
          throw new Error('roll back');
        });
        await isOpen;
        // Another request's publish, made while the transaction is open.
        const outside = publishObject(store, other, live());
        await expect(tx).rejects.toThrow(/roll back/);
        await outside;
        expect((await store.objects.get(target.id, live()))?.hidden).toBe(false);
        expect(await store.objects.get(other.id, live())).not.toBeNull();
      });
    });

    describe('registry records', () => {
      const entry = (name: string, patch: Partial<RegistryEntry> = {}): RegistryEntry => ({
        name,
        version: '1.0.0',
        title: null,
        description: `About ${name}`,
        status: 'active',
        websiteUrl: null,
        repositoryUrl: null,
        category: null,
        remote: { type: 'streamable-http', url: `https://${name.replace('/', '.')}.example/mcp`, headers: [] },
        publishedAt: T0,
        updatedAt: T0,
        ...patch,
      });
      const working = (...names: string[]): ProbeOutcome => ({
        kind: 'working',
        detail: 'ok',
        httpStatus: 200,
        protocolVersion: '2026-07-28',
        tools: names.map((n) => ({ name: n, title: null, description: `does ${n}`, inputSchema: '{"type":"object"}' })),
        toolCount: names.length,
        auth: null,
      });

      it('upserts servers, reports first sightings, and makes probe-able ones due at once', async () => {
        const r = store.registry;
        expect(await r.upsertServers([entry('com.a/one'), entry('com.a/tmpl', { remote: { type: 'streamable-http', url: 'https://{t}.a/mcp', headers: [] } })], T0)).toEqual([
          'com.a/one',
          'com.a/tmpl',
        ]);
        expect(await r.upsertServers([entry('com.a/one', { version: '1.1.0' })], T0 + 1)).toEqual([]);
        const one = await r.getServer('com.a/one');
        expect(one).toMatchObject({ version: '1.1.0', verdict: 'unverified', outcome: 'never-probed', nextProbeAt: T0, firstSeenAt: T0, syncedAt: T0 + 1 });
        expect((await r.getServer('com.a/tmpl'))?.outcome).toBe('template-url');
        expect((await r.dueServers(T0, 10)).map((s) => s.name)).toEqual(['com.a/one']);
      });

      it('records probes with tools present and gone, and history newest first', async () => {
        const r = store.registry;
        await r.upsertServers([entry('com.b/srv')], T0);
        await r.recordProbe('com.b/srv', { state: { verdict: 'working', failStreak: 0, toolNames: ['x', 'y'] }, outcome: working('x', 'y'), checkedAt: T0 + 10, nextProbeAt: T0 + DAY }, [
          { kind: 'became-working', names: [], at: T0 + 10 },
        ]);
        await r.recordProbe('com.b/srv', { state: { verdict: 'working', failStreak: 0, toolNames: ['y', 'z'] }, outcome: working('y', 'z'), checkedAt: T0 + 20, nextProbeAt: T0 + DAY }, [
          { kind: 'tools-added', names: ['z'], at: T0 + 20 },
        ]);
        expect((await r.tools('com.b/srv', true)).map((t) => t.name)).toEqual(['y', 'z']);
        const all = await r.tools('com.b/srv', false);
        expect(all.map((t) => [t.name, t.present, t.firstSeenAt, t.lastSeenAt])).toEqual([
          ['x', false, T0 + 10, T0 + 10],
          ['y', true, T0 + 10, T0 + 20],
          ['z', true, T0 + 20, T0 + 20],
        ]);
        expect(await r.tool('com.b/srv', 'y')).toMatchObject({ description: 'does y', inputSchema: '{"type":"object"}' });
        expect(await r.tool('com.b/srv', 'nope')).toBeNull();
        expect((await r.events('com.b/srv', 10)).map((e) => e.kind)).toEqual(['tools-added', 'became-working', 'first-seen']);
        expect((await r.events('com.b/srv', 10))[0]!.names).toEqual(['z']);
        const s = await r.getServer('com.b/srv');
        expect(s).toMatchObject({ verdict: 'working', toolCount: 2, checkedAt: T0 + 20, nextProbeAt: T0 + DAY, protocolVersion: '2026-07-28' });
        // A failed probe keeps the tool count and the last protocol version.
        await r.recordProbe(
          'com.b/srv',
          {
            state: { verdict: 'working', failStreak: 1, toolNames: ['y', 'z'] },
            outcome: { kind: 'timeout', detail: 'slow', httpStatus: null, protocolVersion: null, tools: null, toolCount: null, auth: null },
            checkedAt: T0 + 30,
            nextProbeAt: T0 + 40,
          },
          [],
        );
        expect(await r.getServer('com.b/srv')).toMatchObject({ verdict: 'working', failStreak: 1, outcome: 'timeout', outcomeDetail: 'slow', toolCount: 2, protocolVersion: '2026-07-28' });
        expect((await r.tools('com.b/srv', true)).length).toBe(2);
      });

      it('lists, filters, searches and counts servers; deleted and unlisted ones drop out', async () => {
        const r = store.registry;
        await r.upsertServers([entry('com.c/alpha', { title: 'Weather 100%' }), entry('com.c/beta'), entry('com.c/gamma', { status: 'deleted' })], T0);
        await r.recordProbe('com.c/beta', { state: { verdict: 'needs-auth', failStreak: 0, toolNames: null }, outcome: { kind: 'auth-required', detail: '401', httpStatus: 401, protocolVersion: null, tools: null, toolCount: null, auth: { scheme: 'Bearer', metadataUrl: 'https://b/.well-known/oauth-protected-resource' } }, checkedAt: T0, nextProbeAt: T0 + DAY }, []);
        expect(await r.getServer('com.c/beta')).toMatchObject({ verdict: 'needs-auth', authScheme: 'Bearer', authMetadataUrl: 'https://b/.well-known/oauth-protected-resource' });
        expect(await r.getServer('com.c/gamma')).toBeNull();
        expect((await r.listServers({ limit: 10, offset: 0 })).total).toBe(2);
        expect((await r.listServers({ verdict: 'needs-auth', limit: 10, offset: 0 })).servers.map((s) => s.name)).toEqual(['com.c/beta']);
        expect((await r.listServers({ q: '100%', limit: 10, offset: 0 })).servers.map((s) => s.name)).toEqual(['com.c/alpha']);
        expect((await r.listServers({ q: '_', limit: 10, offset: 0 })).total).toBe(0);
        expect((await r.listServers({ limit: 1, offset: 1 })).servers.map((s) => s.name)).toEqual(['com.c/beta']);
        expect(await r.verdictCounts()).toEqual({ working: 0, 'needs-auth': 1, unverified: 1 });
        expect((await r.dueServers(T0 + 1, 10)).map((s) => s.name)).toEqual(['com.c/alpha']);
        await r.upsertServers([entry('com.c/beta')], T0 + 5);
        expect(await r.markUnlisted(T0 + 5)).toBe(1);
        expect(await r.getServer('com.c/alpha')).toBeNull();
        expect((await r.dueServers(T0 + DAY * 2, 10)).map((s) => s.name)).toEqual(['com.c/beta']);
      });

      it('starts a server over when its endpoint changes', async () => {
        const r = store.registry;
        await r.upsertServers([entry('com.d/x')], T0);
        await r.recordProbe('com.d/x', { state: { verdict: 'working', failStreak: 0, toolNames: [] }, outcome: working(), checkedAt: T0, nextProbeAt: T0 + DAY }, []);
        await r.upsertServers([entry('com.d/x', { remote: { type: 'streamable-http', url: 'https://moved.example/mcp', headers: [] } })], T0 + 5);
        expect(await r.getServer('com.d/x')).toMatchObject({ verdict: 'unverified', outcome: 'never-probed', nextProbeAt: T0 + 5, checkedAt: null });
        await r.upsertServers([entry('com.d/x', { remote: { type: 'sse', url: 'https://moved.example/sse', headers: [] } })], T0 + 6);
        expect(await r.getServer('com.d/x')).toMatchObject({ outcome: 'sse-remote', nextProbeAt: null });
      });
    });

    spacesContract(() => store, () => clock.now(), { obj, live });

    describe('identity', () => {
      it('registers a key once and reads it back', async () => {
        expect(await store.identity.registerKey('kid-1', '{"x":"a"}', clock.now())).toBe(true);
        expect(await store.identity.registerKey('kid-1', '{"x":"b"}', clock.now())).toBe(false);
        expect(await store.identity.getKey('kid-1')).toBe('{"x":"a"}');
        expect(await store.identity.getKey('kid-2')).toBeNull();
      });

      it('counts votes by other voters on an author’s objects within the window', async () => {
        const author = { id: 'author-a', trustLevel: 'signed' as const, domain: null };
        const a1 = await insert({ author });
        const a2 = await insert({ author });
        const other = await insert();
        const vote = (objectId: string, voterId: string, kind: 'verify' | 'contradict') =>
          store.votes.cast({ objectId, voterId, kind, note: null, evidenceUrl: null }, live());
        await vote(a1.id, 'v1', 'verify');
        await vote(a2.id, 'v1', 'verify');
        await vote(a1.id, 'v2', 'verify');
        await vote(a2.id, 'v3', 'contradict');
        await vote(other.id, 'v4', 'verify');
        expect(await store.identity.authorVoteStats('author-a', clock.now() - DAY)).toEqual({ verifications: 3, verifiers: 2, contradictions: 1 });
        clock.advance(10 * DAY);
        await vote(a1.id, 'v5', 'verify');
        expect(await store.identity.authorVoteStats('author-a', clock.now() - DAY)).toEqual({ verifications: 1, verifiers: 1, contradictions: 0 });
      });

      it('shows reputable on an author’s objects, old and new, and the signed trust again after', async () => {
        const author = { id: 'author-r', trustLevel: 'domain-verified' as const, domain: 'agent.example' };
        const before = await insert({ author });
        expect(await store.identity.setReputable('author-r', true, clock.now())).toBe(true);
        expect(await store.identity.setReputable('author-r', true, clock.now())).toBe(false);
        expect(await store.identity.isReputable('author-r')).toBe(true);
        expect((await store.objects.get(before.id, live()))!.author).toEqual({ id: 'author-r', trustLevel: 'reputable', domain: 'agent.example' });
        const after = await insert({ author });
        expect(after.author?.trustLevel).toBe('reputable');
        expect(await store.identity.setReputable('author-r', false, clock.now())).toBe(true);
        expect((await store.objects.get(after.id, live()))!.author?.trustLevel).toBe('domain-verified');
        expect(await store.identity.isReputable('author-r')).toBe(false);
      });
    });

    describe('event log', () => {
      const ev = (objectId: string, kind: 'created' | 'updated' = 'created') => ({ kind, objectId, type: 'finding' as const, topics: ['a', 'b'], threadId: objectId, at: clock.now() });

      it('keeps committed events in order, drops rolled-back ones, and tells listeners after the commit', async () => {
        let heard = 0;
        const listening = await store.events.listen(() => heard++);
        try {
          expect(await store.events.bounds()).toEqual({ newest: 0, prunedThrough: 0 });
          await store.withTransaction('scope', async (tx) => tx.events.append(ev('o1')));
          await expect(
            store.withTransaction('scope', async (tx) => {
              await tx.events.append(ev('o2'));
              throw new Error('rolled back');
            }),
          ).rejects.toThrow('rolled back');
          await store.events.append(ev('o3', 'updated'));
          const all = await store.events.after(0, 10);
          expect(all.map((e) => [e.objectId, e.kind])).toEqual([
            ['o1', 'created'],
            ['o3', 'updated'],
          ]);
          expect(all[0]).toMatchObject({ type: 'finding', topics: ['a', 'b'], threadId: 'o1', at: clock.now() });
          expect(all[1]!.seq).toBeGreaterThan(all[0]!.seq);
          expect(await store.events.after(all[0]!.seq, 10)).toEqual([all[1]]);
          expect((await store.events.bounds()).newest).toBe(all[1]!.seq);
          await expect.poll(() => heard, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
        } finally {
          await listening.stop();
        }
      });

      it('prunes what is both old and beyond the newest kept, and remembers how far', async () => {
        for (let i = 0; i < 5; i++) {
          await store.events.append(ev(`o${i}`));
          clock.advance(DAY);
        }
        const seqs = (await store.events.after(0, 10)).map((e) => e.seq);
        // Older than 2 days, and not among the newest 2: the first three go.
        expect(await store.events.prune(clock.now() - 2 * DAY, 2)).toBe(3);
        expect((await store.events.after(0, 10)).map((e) => e.seq)).toEqual(seqs.slice(3));
        expect(await store.events.bounds()).toEqual({ newest: seqs[4], prunedThrough: seqs[2] });
        // The newest are kept however old they are.
        expect(await store.events.prune(clock.now() + DAY, 2)).toBe(0);
        expect(await store.events.prune(clock.now() + DAY, 1)).toBe(1);
        expect(await store.events.bounds()).toEqual({ newest: seqs[4], prunedThrough: seqs[3] });
      });
    });

    it('keeps the first value of a setting', async () => {
      expect(await store.getSetting('k')).toBeNull();
      expect(await store.initSetting('k', 'one')).toBe('one');
      expect(await store.initSetting('k', 'two')).toBe('one');
    });
  });
}
