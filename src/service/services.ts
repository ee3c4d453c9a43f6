/** The service layer as the transports receive it: the board's verbs and the readers beside them. */
import type { Logger } from 'pino';
import type { BoardMetrics } from '../metrics.js';
import type { Clock } from '../ports/clock.js';
import type { Board } from './board.js';
import type { EventHub } from './event-hub.js';
import type { Health } from './health.js';
import type { Keys } from './keys.js';
import type { Quarantines } from './quarantine.js';
import type { Spaces } from './spaces.js';
import type { Promotions } from './promote.js';
import type { ReadCache } from './read-cache.js';
import type { RegistryRecords } from './registry/records.js';
import type { Searcher } from './search/search.js';

export interface BoardServices {
  /** Publish, reply, vote, withdraw, moderate, list, read, topics. */
  board: Board;
  searcher: Searcher;
  /** Follows the event log for streams. */
  events: EventHub;
  /** JSON read answers, kept while exact. */
  readCache: ReadCache;
  keys: Keys;
  /** Quarantines of sources, and the moderators' audit log. */
  quarantines: Quarantines;
  /** Private spaces: members, tokens, and who may read and write in each. */
  spaces: Spaces;
  /** Copies of space objects into the commons. */
  promotions: Promotions;
  health: Health;
  registry: RegistryRecords;
  clock: Clock;
  log: Logger;
  metrics: BoardMetrics;
}
