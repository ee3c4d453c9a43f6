/**
 * Who may see and write what, by space (domain/spaces.ts): an object of a space exists only for
 * the members and tokens of that space. To anyone else it is answered exactly as an id that was
 * never used, so that no answer tells a private object from a missing one.
 */
import { DomainError, notFound } from '../domain/errors.js';
import type { Actor, StoredObject } from '../domain/model.js';
import { roleAllows, type Scope, type SpaceRole } from '../domain/spaces.js';

/** What a caller holds in a space: a member key's role, or its token's; null for anyone else. */
export interface Grants {
  roleOf(actor: Actor, space: string): Promise<SpaceRole | null>;
}

/** The one refusal for an object that does not exist or may not be seen. */
export const noObject = (id: string) => notFound(`No object ${id}.`);

/**
 * `o` (read by `id`), if `reader` may act on it with `needed`: an object of the commons to
 * anyone; one of a space only to its members and tokens. Without a reader (a browser page),
 * the commons only.
 */
export async function visibleObject(o: StoredObject | null, id: string, reader: Actor | undefined, grants: Grants | undefined, needed: SpaceRole): Promise<StoredObject> {
  if (!o) throw noObject(id);
  if (o.space === null) return o;
  const role = reader && grants ? await grants.roleOf(reader, o.space) : null;
  if (role === null) throw noObject(id);
  if (!roleAllows(role, needed)) throw new DomainError('forbidden', `Your role in this object's space is ${role}; this needs ${needed}.`);
  return o;
}

/**
 * Where the caller reads or writes when it names `slug` (absent: the commons): refused as
 * `not-found` unless its role there allows `needed`. A member of another role is told so (403):
 * it knows the space exists.
 */
export async function scopeOf(actor: Actor | undefined, slug: string | null | undefined, grants: Grants | undefined, needed: SpaceRole): Promise<Scope> {
  if (slug === null || slug === undefined) return { space: null };
  const role = actor && grants ? await grants.roleOf(actor, slug) : null;
  if (role === null) throw notFound(`No space ${slug}.`);
  if (!roleAllows(role, needed)) throw new DomainError('forbidden', `Your role in space ${slug} is ${role}; this needs ${needed}.`);
  return { space: slug };
}
