/**
 * The spaces half of the Store contract, run by store.case.ts inside each adapter's suite:
 * spaces, members with the last-admin rule, and tokens kept as hashes.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/ports/store.js';
import type { NewObject } from '../../src/ports/object-store.js';
import type { LiveCriteria, StoredObject } from '../../src/domain/model.js';
import type { SpaceToken } from '../../src/domain/spaces.js';
import { eventOf } from '../../src/domain/events.js';

export interface ScopeHelpers {
  /** A new object as the suite makes them, with `patch` on top. */
  obj: (patch?: Partial<NewObject>) => NewObject;
  live: () => LiveCriteria;
}

const unit = (...xs: number[]) => Float32Array.from(xs).map((x) => x / Math.hypot(...xs));

export function spacesContract(store: () => Store, now: () => number, h: ScopeHelpers): void {
  describe('reads in one scope', () => {
    const put = async (patch: Partial<NewObject>, vector?: Float32Array): Promise<StoredObject> => {
      const o = h.obj(patch);
      return (await store().publish(o, h.live(), eventOf('created', o, now()), vector ? { model: 'm1', vector } : null)).object;
    };
    const inSpace = (space: string | null) => ({ ...h.live(), space });

    it('lists, counts topics, searches both legs and dedupes within one scope, and a reply counts where its root is', async () => {
      const vectors = store().capabilities.vectors.available;
      const text = { content: 'the connection pool exhausted under load', topics: ['pool', 'shared'], dedupeKey: 'same-words' };
      const commons = await put({ ...text }, vectors ? unit(1, 0, 0) : undefined);
      const secret = await put({ ...text, space: 'team-a', dedupeKey: 'same-words:team-a' }, vectors ? unit(1, 0, 0) : undefined);
      const other = await put({ content: 'pool settings of team b', topics: ['pool', 'team-b-only'], space: 'team-b' }, vectors ? unit(1, 0.1, 0) : undefined);
      expect(secret).toMatchObject({ space: 'team-a' });
      expect(commons.space).toBeNull();
      const reply = await put({ type: 'response', parentId: secret.id, content: 'a reply in the space', topics: ['pool'], space: 'team-a' });
      const ids = (xs: { id: string }[]) => xs.map((x) => x.id).sort();

      expect(ids(await store().objects.list({ live: h.live(), limit: 50 }))).toEqual([commons.id]);
      expect(ids(await store().objects.list({ live: inSpace('team-a'), limit: 50 }))).toEqual([reply.id, secret.id].sort());
      expect(ids(await store().objects.list({ live: inSpace('team-c'), limit: 50 }))).toEqual([]);
      expect(await store().objects.topTopics(h.live(), 1, 50)).toEqual([
        { slug: 'pool', count: 1 },
        { slug: 'shared', count: 1 },
      ]);
      expect(await store().objects.topicCounts(inSpace('team-a'), ['pool', 'team-b-only'])).toEqual([{ slug: 'pool', count: 2 }]);
      expect(await store().objects.coTopics(h.live(), 'pool', 10)).toEqual([{ slug: 'shared', count: 1 }]);
      expect(await store().objects.topicsLike(h.live(), ['team'], 10)).toEqual([]);
      expect(ids(await store().search.lexical({ live: h.live(), terms: ['pool'], limit: 10 }))).toEqual([commons.id]);
      expect(ids(await store().search.lexical({ live: inSpace('team-b'), terms: ['pool'], limit: 10 }))).toEqual([other.id]);
      if (vectors) {
        expect(ids(await store().search.semantic({ live: h.live(), vector: unit(1, 0, 0), model: 'm1', limit: 10 }))).toEqual([commons.id]);
        expect(ids(await store().search.semantic({ live: inSpace('team-b'), vector: unit(1, 0, 0), model: 'm1', limit: 10 }))).toEqual([other.id]);
      }
      // The object itself is read in any scope, and counts its replies, which share its space.
      expect((await store().objects.get(secret.id, h.live()))!.replyCount).toBe(1);
      // The same words in two scopes are two objects; the second publish is not told of the first.
      const again = await store().publish({ ...h.obj({ ...text }) }, h.live(), eventOf('created', commons, now()));
      expect(again).toMatchObject({ created: false, object: { id: commons.id } });
      const events = await store().events.after(0, 100);
      expect(events.filter((e) => e.objectId === secret.id).map((e) => e.space)).toEqual(['team-a']);
      expect(events.filter((e) => e.objectId === commons.id).map((e) => e.space)).toEqual([null]);
    });
  });

  describe('spaces', () => {
    const space = (slug: string) => ({ slug, name: `The ${slug} team`, createdAt: now() });

    it('creates a space once, its creator its admin, and lists the spaces of a key', async () => {
      expect(await store().spaces.create(space('team-a'), 'kid-a')).toBe(true);
      expect(await store().spaces.create(space('team-a'), 'kid-b')).toBe(false);
      expect(await store().spaces.create(space('team-b'), 'kid-b')).toBe(true);
      expect(await store().spaces.get('team-a')).toEqual(space('team-a'));
      expect(await store().spaces.get('team-z')).toBeNull();
      expect(await store().spaces.roleOf('team-a', 'kid-a')).toBe('admin');
      expect(await store().spaces.roleOf('team-a', 'kid-b')).toBeNull();
      expect(await store().spaces.changeMember('team-b', 'kid-a', 'reader', now())).toBe('done');
      expect(await store().spaces.spacesOf('kid-a')).toEqual([
        { ...space('team-a'), role: 'admin' },
        { ...space('team-b'), role: 'reader' },
      ]);
      expect(await store().spaces.spacesOf('kid-nobody')).toEqual([]);
    });

    it('changes and removes members, and never leaves a space without an admin', async () => {
      await store().spaces.create(space('team-c'), 'kid-a');
      expect(await store().spaces.changeMember('team-c', 'kid-a', 'writer', now())).toBe('last-admin');
      expect(await store().spaces.changeMember('team-c', 'kid-a', null, now())).toBe('last-admin');
      expect(await store().spaces.changeMember('team-c', 'kid-b', 'writer', now())).toBe('done');
      expect(await store().spaces.changeMember('team-c', 'kid-b', 'admin', now())).toBe('done');
      expect(await store().spaces.changeMember('team-c', 'kid-x', null, now())).toBe('not-member');
      // Two admins demoting each other at once: one wins, an admin remains.
      const both = await Promise.all([store().spaces.changeMember('team-c', 'kid-a', null, now()), store().spaces.changeMember('team-c', 'kid-b', null, now())]);
      expect(both.sort()).toEqual(['done', 'last-admin']);
      const members = await store().spaces.members('team-c');
      expect(members).toHaveLength(1);
      expect(members[0]!.role).toBe('admin');
    });

    it('keeps tokens by hash, lists them without secrets, and revokes each once', async () => {
      await store().spaces.create(space('team-d'), 'kid-a');
      const token = (id: string, patch: Partial<SpaceToken> = {}): SpaceToken => ({ id, space: 'team-d', name: `ci ${id}`, role: 'reader', createdAt: now(), expiresAt: null, revokedAt: null, ...patch });
      await store().spaces.addToken(token('01HZZZZZZZZZZZZZZZZZZZZZZ1'), 'hash-1');
      await store().spaces.addToken(token('01HZZZZZZZZZZZZZZZZZZZZZZ2', { role: 'writer', expiresAt: now() + 1000 }), 'hash-2');
      expect(await store().spaces.tokenByHash('hash-2')).toEqual(token('01HZZZZZZZZZZZZZZZZZZZZZZ2', { role: 'writer', expiresAt: now() + 1000 }));
      expect(await store().spaces.tokenByHash('hash-3')).toBeNull();
      expect((await store().spaces.tokens('team-d')).map((t) => t.id)).toEqual(['01HZZZZZZZZZZZZZZZZZZZZZZ2', '01HZZZZZZZZZZZZZZZZZZZZZZ1']);
      expect(JSON.stringify(await store().spaces.tokens('team-d'))).not.toContain('hash-');
      expect(await store().spaces.revokeToken('team-e', '01HZZZZZZZZZZZZZZZZZZZZZZ1', now())).toBe(false);
      expect(await store().spaces.revokeToken('team-d', '01HZZZZZZZZZZZZZZZZZZZZZZ1', now())).toBe(true);
      expect(await store().spaces.revokeToken('team-d', '01HZZZZZZZZZZZZZZZZZZZZZZ1', now())).toBe(false);
      expect((await store().spaces.tokenByHash('hash-1'))!.revokedAt).toBe(now());
    });
  });
}
