/** Publishes a row as the board does: with its `created` event. */
import { eventOf } from '../../src/domain/events.js';
import type { LiveCriteria } from '../../src/domain/model.js';
import type { NewObject } from '../../src/ports/object-store.js';
import type { Store } from '../../src/ports/store.js';

export const publishObject = (store: Pick<Store, 'publish'>, o: NewObject, live: LiveCriteria) => store.publish(o, live, eventOf('created', o, live.now));
