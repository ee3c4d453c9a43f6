/** What a transport is handed: the service layer, what web/ reads of each request, and the transport's own settings. */
import type { BoardServices } from '../service/services.js';

/** What web/'s request helpers read: who the caller is and how large a body may be. */
export interface WebSettings {
  /** Take the client address from X-Forwarded-For (behind a proxy the operator trusts). */
  trustProxy: boolean;
  maxBodyBytes: number;
  /** Key of the anonymous-voter hash. */
  voterSecret: string;
}

export interface TransportDeps<S = unknown> extends BoardServices {
  web: WebSettings;
  settings: S;
}
