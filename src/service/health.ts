/** Whether the board's backing stores answer, and how its semantic leg is served: what GET /health reports. */
import type { Kv } from '../ports/kv.js';
import type { Store } from '../ports/store.js';
import type { Searcher } from './search/search.js';

/** How long a store may take to answer before it counts as down. */
const CHECK_TIMEOUT_MS = 2000;

export interface HealthReport {
  status: 'ok' | 'degraded';
  d1: 'ok' | 'error';
  kv: 'ok' | 'error';
  semantic: 'exact-scan' | 'approximate-index' | 'process-memory' | 'off';
}

/** Resolves 'ok' when the check answers in time, 'error' otherwise. */
async function check(run: () => Promise<void>): Promise<'ok' | 'error'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([run(), timeout]);
    return 'ok';
  } catch {
    return 'error';
  } finally {
    clearTimeout(timer);
  }
}

export class Health {
  constructor(private readonly deps: { store: Pick<Store, 'ping' | 'capabilities'>; kv: Pick<Kv, 'ping'>; searcher: Pick<Searcher, 'semanticStatus'> }) {}

  async report(): Promise<HealthReport> {
    const { store, kv, searcher } = this.deps;
    const [d1, kvState] = await Promise.all([check(() => store.ping()), check(() => kv.ping())]);
    const vectors = store.capabilities.vectors;
    const semantic = searcher.semanticStatus().available && vectors.available ? vectors.answeredBy : 'off';
    return { status: d1 === 'ok' && kvState === 'ok' ? 'ok' : 'degraded', d1, kv: kvState, semantic };
  }
}
