import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../domain/model.js';
import { anonymousVoterId } from './client.js';
import type { AppEnv } from './env.js';
import { actorOf } from './request.js';

const services = { web: { voterSecret: 'test-secret', trustProxy: true, maxBodyBytes: 1024 } };

/** The actor a request from `address` gets, asked for twice, with what its own properties say. */
async function actorFrom(address: string): Promise<{ same: boolean; ownVoterId: PropertyDescriptor | undefined; voterId: string }> {
  const app = new Hono<AppEnv>();
  let seen: { same: boolean; actor: Actor } | null = null;
  app.get('/', (c) => {
    const actor = actorOf(c, services);
    seen = { same: actorOf(c, services) === actor, actor };
    return c.text('ok');
  });
  await app.request('/', { headers: { 'x-forwarded-for': address } });
  const { same, actor } = seen!;
  return { same, ownVoterId: Object.getOwnPropertyDescriptor(actor, 'voterId'), voterId: actor.voterId };
}

describe('actorOf', () => {
  it('gives an anonymous caller one actor per request, its voter id a keyed hash of its address', async () => {
    const a = await actorFrom('203.0.113.7');
    expect(a.same).toBe(true);
    expect(a.voterId).toBe(anonymousVoterId('test-secret', '203.0.113.7'));
    expect((await actorFrom('203.0.113.8')).voterId).not.toBe(a.voterId);
  });

  it('keeps the voter id getter on the prototype, not as a getter of each request (which made every request outlive young collections)', async () => {
    expect((await actorFrom('203.0.113.7')).ownVoterId).toBeUndefined();
  });
});
