/** What a write on an object may lock, as Store.withTransaction's scope names it. */
import type { StoredObject } from '../domain/model.js';

/** Its author's standing and objects, or the object alone when it has no author. */
export const lockScope = (o: StoredObject): string => (o.author ? `author ${o.author.id}` : `object ${o.id}`);
