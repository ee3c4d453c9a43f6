/**
 * Spaces: private team memory beside the commons. Who may do what in a space is decided here,
 * on every request, from the store (never a cache): a key's membership and role, or a token's
 * space and role. What a caller may not read does not exist for it: refusals to non-members are
 * 404 `not-found`, worded as for a space that does not exist.
 */
import { createHash, randomBytes } from 'node:crypto';
import { DomainError, invalid, notFound } from '../domain/errors.js';
import type { Actor } from '../domain/model.js';
import { tokenActive, type Scope, type SpaceLimits, type Space, type SpaceMember, type SpaceRole, type SpaceToken } from '../domain/spaces.js';
import type { Clock, Ids } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { parseOrThrow } from '../schemas/parse.js';
import { scopeOf, type Grants } from './visibility.js';
import { CreateSpaceBody, CreateTokenBody, MemberBody } from '../schemas/spaces.js';

export interface SpacesDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  limits: SpaceLimits;
}

/** A space token's secret starts with this, so that it is told from other bearer credentials (the operator's). */
export const TOKEN_PREFIX = 'abt_';

/** How a secret is kept: its SHA-256. A token is 256 random bits, so no slower hash is needed against guessing. */
export const tokenHash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export type { Space, SpaceMember, SpaceRole, SpaceToken };

const noSpace = (slug: string) => notFound(`No space ${slug}.`);

export class Spaces implements Grants {
  constructor(private readonly deps: SpacesDeps) {}

  /** The token a bearer secret names, if it is active now; null for any other (unknown, revoked, expired). */
  async activeToken(secret: string): Promise<SpaceToken | null> {
    const token = await this.deps.store.spaces.tokenByHash(tokenHash(secret));
    return token && tokenActive(token, this.deps.clock.now()) ? token : null;
  }

  /** The caller's role in the space: a member key's, or its token's; null for anyone else. */
  async roleOf(actor: Actor, slug: string): Promise<SpaceRole | null> {
    if (actor.token && actor.token.space === slug) return actor.token.role;
    if (!actor.author) return null;
    return this.deps.store.spaces.roleOf(slug, actor.author.id);
  }

  /**
   * Where the caller reads or writes when it names `slug` (null: the commons), refused as
   * `not-found` unless its role allows `needed`. A member that may read but not write is told
   * so (403): it knows the space exists.
   */
  scope(actor: Actor, slug: string | null | undefined, needed: SpaceRole): Promise<Scope> {
    return scopeOf(actor, slug, this, needed);
  }

  async create(actor: Actor, body: unknown): Promise<Space & { role: SpaceRole }> {
    const input = parseOrThrow(CreateSpaceBody, body);
    const keyid = this.#signed(actor, 'create a space');
    if ((await this.deps.store.spaces.spacesOf(keyid)).length >= this.deps.limits.perKeyMax) {
      throw new DomainError('forbidden', `A key may belong to ${this.deps.limits.perKeyMax} spaces at most; leave one first.`);
    }
    const space: Space = { slug: input.slug, name: input.name, createdAt: this.deps.clock.now() };
    if (!(await this.deps.store.spaces.create(space, keyid))) throw new DomainError('space-conflict', `The slug ${input.slug} is taken; choose another.`);
    return { ...space, role: 'admin' };
  }

  /** The spaces the caller belongs to, with its role in each; a token, its own space. */
  async mine(actor: Actor): Promise<(Space & { role: SpaceRole })[]> {
    if (actor.token) {
      const space = await this.deps.store.spaces.get(actor.token.space);
      return space ? [{ ...space, role: actor.token.role }] : [];
    }
    return this.deps.store.spaces.spacesOf(this.#signed(actor, 'list your spaces'));
  }

  async members(actor: Actor, slug: string): Promise<SpaceMember[]> {
    await this.#admin(actor, slug);
    return this.deps.store.spaces.members(slug);
  }

  /** Adds the key with `role`, or changes its role. */
  async setMember(actor: Actor, slug: string, keyid: string, body: unknown): Promise<SpaceMember> {
    const { role } = parseOrThrow(MemberBody, body);
    await this.#admin(actor, slug);
    const members = await this.deps.store.spaces.members(slug);
    const existing = members.find((m) => m.keyid === keyid);
    if (!existing) {
      if (members.length >= this.deps.limits.membersMax) throw new DomainError('forbidden', `A space has ${this.deps.limits.membersMax} members at most.`);
      if ((await this.deps.store.spaces.spacesOf(keyid)).length >= this.deps.limits.perKeyMax) {
        throw new DomainError('forbidden', `Key ${keyid} already belongs to ${this.deps.limits.perKeyMax} spaces, the most a key may.`);
      }
    }
    const now = this.deps.clock.now();
    this.#changed(await this.deps.store.spaces.changeMember(slug, keyid, role, now), slug, keyid);
    // A change of role keeps when the key was added (the store's upsert does too).
    return { keyid, role, addedAt: existing?.addedAt ?? now };
  }

  /** Removes a member: an admin may remove anyone, and any member itself; never the last admin. */
  async removeMember(actor: Actor, slug: string, keyid: string): Promise<void> {
    if (actor.author?.id !== keyid || actor.token) await this.#admin(actor, slug);
    else if ((await this.roleOf(actor, slug)) === null) throw noSpace(slug);
    this.#changed(await this.deps.store.spaces.changeMember(slug, keyid, null, this.deps.clock.now()), slug, keyid);
  }

  /** A new token; its secret is answered this once and kept only as a hash. */
  async createToken(actor: Actor, slug: string, body: unknown): Promise<{ token: SpaceToken; secret: string }> {
    const input = parseOrThrow(CreateTokenBody, body);
    if (input.expires_in !== undefined && input.expires_in > this.deps.limits.tokenMaxSeconds) {
      throw invalid([{ path: 'expires_in', message: `must be at most ${this.deps.limits.tokenMaxSeconds} seconds` }]);
    }
    await this.#admin(actor, slug);
    if ((await this.deps.store.spaces.tokens(slug)).length >= this.deps.limits.tokensMax) {
      throw new DomainError('forbidden', `A space holds ${this.deps.limits.tokensMax} tokens at most, revoked ones included.`);
    }
    const now = this.deps.clock.now();
    const token: SpaceToken = { id: this.deps.ids.next(), space: slug, name: input.name, role: input.role, createdAt: now, expiresAt: input.expires_in === undefined ? null : now + input.expires_in * 1000, revokedAt: null };
    const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    await this.deps.store.spaces.addToken(token, tokenHash(secret));
    return { token, secret };
  }

  async tokens(actor: Actor, slug: string): Promise<SpaceToken[]> {
    await this.#admin(actor, slug);
    return this.deps.store.spaces.tokens(slug);
  }

  async revokeToken(actor: Actor, slug: string, id: string): Promise<void> {
    await this.#admin(actor, slug);
    if (!(await this.deps.store.spaces.revokeToken(slug, id, this.deps.clock.now()))) {
      const known = (await this.deps.store.spaces.tokens(slug)).some((t) => t.id === id);
      if (!known) throw notFound(`No token ${id} in space ${slug}.`);
    }
  }

  #signed(actor: Actor, what: string): string {
    if (!actor.author) throw new DomainError('unauthorized', `Sign the request (HTTP Message Signatures) to ${what}: spaces belong to keys.`);
    return actor.author.id;
  }

  /** Refuses anyone but an admin of the space: 404 for non-members, 403 for members of another role. */
  async #admin(actor: Actor, slug: string): Promise<void> {
    await this.scope(actor, slug, 'admin');
  }

  #changed(result: 'done' | 'last-admin' | 'not-member', slug: string, keyid: string): void {
    if (result === 'last-admin') throw new DomainError('space-conflict', `That would leave space ${slug} without an admin; make another member admin first.`);
    if (result === 'not-member') throw notFound(`Key ${keyid} is not a member of space ${slug}.`);
  }
}
