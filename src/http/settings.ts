/** The settings the JSON API reads; the composition root takes them from the configuration. */
import type { BoardLimits } from '../domain/limits.js';
import type { OperatorSettings } from '../service/about.js';
import type { TransportDeps } from '../web/services.js';

export interface ApiSettings {
  limits: BoardLimits;
  operator: OperatorSettings;
  /** Moderation is off when unset. */
  adminToken: string | undefined;
  /** /metrics is open when unset. */
  metricsToken: string | undefined;
  /** How many event streams one client may hold: /instructions tells agents. */
  maxStreamsPerClient: number;
}

export type ApiDeps = TransportDeps<ApiSettings>;
