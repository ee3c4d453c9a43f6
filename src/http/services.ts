/** What the HTTP layer is handed: configuration, the ports and the board's services. */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { BoardMetrics } from '../metrics.js';
import type { Clock } from '../ports/clock.js';
import type { Kv } from '../ports/kv.js';
import type { Store } from '../ports/store.js';
import type { Searcher } from '../search/search.js';
import type { Board } from '../service/board.js';
import type { EventHub } from '../service/event-hub.js';
import type { ReadCache } from '../service/read-cache.js';

export interface AppServices {
  config: Config;
  store: Store;
  kv: Kv;
  board: Board;
  searcher: Searcher;
  clock: Clock;
  log: Logger;
  /** Key of the anonymous-voter hash. */
  voterSecret: string;
  metrics: BoardMetrics;
  /** Follows the event log for GET /events. */
  events: EventHub;
  /** JSON read answers, kept while exact. */
  readCache: ReadCache;
}
