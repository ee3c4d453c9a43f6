/** Spaces: creating one, its members and their roles, and tokens that are shown once and stop at once. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/identity/agent-sign.mjs';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { registerKeys, signed } from '../helpers/signed.js';

describe('spaces', () => {
  let b: TestBoard;
  const alice = generateKey();
  const bob = generateKey();
  const carol = generateKey();
  beforeEach(async () => {
    b = await makeTestBoard({ SPACE_TOKEN_MAX_SECONDS: '3600', SPACE_TOKENS_MAX: '3' });
    await registerKeys(b, alice, bob, carol);
  });
  afterEach(() => b.dispose());

  const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  const create = async (slug = 'team-a') => {
    const r = await signed(b, 'POST', '/spaces', { key: alice, body: { slug, name: 'Team A' } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.space;
  };

  it('creates a space whose creator is its admin, refuses a taken slug, and lists a key its own spaces', async () => {
    expect(await create('Team A')).toMatchObject({ slug: 'team-a', name: 'Team A', role: 'admin' });
    const taken = await signed(b, 'POST', '/spaces', { key: bob, body: { slug: 'team-a', name: 'Mine' } });
    expect(taken.status).toBe(409);
    expect(taken.body.type).toMatch(/\/problems\/space-conflict$/);
    expect((await b.json('POST', '/spaces', { body: { slug: 'team-b', name: 'x' } })).status).toBe(401);
    const bad = await signed(b, 'POST', '/spaces', { key: alice, body: { slug: '!', name: '', extra: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['extra', 'name', 'slug']);
    expect((await signed(b, 'GET', '/spaces', { key: alice })).body.spaces).toMatchObject([{ slug: 'team-a', role: 'admin' }]);
    expect((await signed(b, 'GET', '/spaces', { key: bob })).body.spaces).toEqual([]);
    expect((await b.json('GET', '/spaces')).status).toBe(401);
  });

  it('lets its admins manage members, members leave, and never the last admin; to others the space does not exist', async () => {
    await create();
    const put = (key = alice, who = bob, role = 'writer') => signed(b, 'PUT', `/spaces/team-a/members/${who.keyid}`, { key, body: { role } });
    expect((await put()).body.member).toMatchObject({ keyid: bob.keyid, role: 'writer' });
    // Bob may write but not manage: he knows the space, so 403. Carol is no member: 404, as for no space at all.
    expect((await put(bob, carol)).status).toBe(403);
    const outsider = await put(carol, carol, 'admin');
    const nothing = await signed(b, 'GET', '/spaces/no-such/members', { key: carol });
    expect(outsider.status).toBe(404);
    expect(nothing.status).toBe(404);
    expect({ ...outsider.body, detail: '', instance: '' }).toEqual({ ...nothing.body, detail: '', instance: '' });
    expect(outsider.body.detail).toBe('No space team-a.');
    expect((await signed(b, 'GET', '/spaces/team-a/members', { key: alice })).body.members.map((m: { keyid: string }) => m.keyid).sort()).toEqual([alice.keyid, bob.keyid].sort());
    const last = await signed(b, 'DELETE', `/spaces/team-a/members/${alice.keyid}`, { key: alice });
    expect(last.status).toBe(409);
    expect((await put(alice, alice, 'reader')).status).toBe(409);
    expect((await signed(b, 'DELETE', `/spaces/team-a/members/${bob.keyid}`, { key: bob })).status).toBe(204);
    expect((await signed(b, 'GET', '/spaces', { key: bob })).body.spaces).toEqual([]);
    expect((await signed(b, 'GET', '/spaces/team-a/members', { key: bob })).status).toBe(404);
    expect((await put(alice, bob, 'owner')).status).toBe(400);
  });

  it('shows a token once, keeps only its hash, lists it without the secret, and a revoked or expired token stops at once', async () => {
    await create();
    const made = await signed(b, 'POST', '/spaces/team-a/tokens', { key: alice, body: { name: 'ci', role: 'reader', expires_in: 600 } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const { id, token } = made.body;
    expect(token).toMatch(/^abt_[A-Za-z0-9_-]{43}$/);
    const listed = await signed(b, 'GET', '/spaces/team-a/tokens', { key: alice });
    expect(listed.body.tokens).toMatchObject([{ id, name: 'ci', role: 'reader', revoked_at: null, active: true }]);
    expect(JSON.stringify(listed.body)).not.toContain(token);
    const kept = await b.services.store.backups.snapshot((snap) => snap.rows('space_tokens', 0, 10));
    expect(kept).toHaveLength(1);
    expect(JSON.stringify(kept)).not.toContain(token.slice(4));
    // The token reads its own space, and may not manage it.
    expect((await b.json('GET', '/spaces', bearer(token))).body.spaces).toMatchObject([{ slug: 'team-a', role: 'reader' }]);
    expect((await b.json('GET', '/spaces/team-a/tokens', bearer(token))).status).toBe(403);
    expect((await b.json('POST', '/spaces/team-a/tokens', { ...bearer(token), body: { name: 'x', role: 'writer' } })).status).toBe(403);
    // Expired: refused at once, as unknown and revoked tokens are, with one answer for all three.
    b.clock.advance(601_000);
    const expired = await b.json('GET', '/findings', bearer(token));
    expect(expired.status).toBe(401);
    expect(expired.body.type).toMatch(/\/problems\/token-invalid$/);
    const unknown = await b.json('GET', '/findings', bearer(`abt_${'x'.repeat(43)}`));
    expect(unknown.body).toEqual({ ...expired.body, instance: unknown.body.instance });
    const second = (await signed(b, 'POST', '/spaces/team-a/tokens', { key: alice, body: { name: 'agent', role: 'writer' } })).body;
    expect((await b.json('GET', '/spaces', bearer(second.token))).status).toBe(200);
    expect((await signed(b, 'DELETE', `/spaces/team-a/tokens/${second.id}`, { key: alice })).status).toBe(204);
    expect((await b.json('GET', '/spaces', bearer(second.token))).status).toBe(401);
    expect((await signed(b, 'DELETE', `/spaces/team-a/tokens/${second.id}`, { key: alice })).status).toBe(204);
    expect((await signed(b, 'DELETE', '/spaces/team-a/tokens/01HZZZZZZZZZZZZZZZZZZZZZZZ', { key: alice })).status).toBe(404);
  });

  it('bounds what a token may be given and how many a space holds', async () => {
    await create();
    const tooLong = await signed(b, 'POST', '/spaces/team-a/tokens', { key: alice, body: { name: 'ci', role: 'reader', expires_in: 3601 } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors).toEqual([{ path: 'expires_in', message: 'must be at most 3600 seconds' }]);
    expect((await signed(b, 'POST', '/spaces/team-a/tokens', { key: alice, body: { name: 'ci', role: 'admin' } })).status).toBe(400);
    for (let i = 0; i < 3; i++) expect((await signed(b, 'POST', '/spaces/team-a/tokens', { key: alice, body: { name: `t${i}`, role: 'reader' } })).status).toBe(201);
    expect((await signed(b, 'POST', '/spaces/team-a/tokens', { key: alice, body: { name: 't3', role: 'reader' } })).status).toBe(403);
  });
});
