/**
 * The spaces half of the Store contract, run by store.case.ts inside each adapter's suite:
 * spaces, members with the last-admin rule, and tokens kept as hashes.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/ports/store.js';
import type { SpaceToken } from '../../src/domain/spaces.js';

export function spacesContract(store: () => Store, now: () => number): void {
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
