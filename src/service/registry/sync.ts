/**
 * Registry sync: walk the listing, upsert every entry (the store notes first sightings), and — after a
 * complete walk only — mark servers that left the listing as deleted. A failed walk changes
 * nothing it has not already written, and marks nothing deleted.
 */
import type { Clock } from '../../ports/clock.js';
import type { RegistryStore } from '../../ports/registry-store.js';
import type { SafeFetchOptions } from '../../net/safe-fetch.js';
import { readListing } from './listing.js';

export interface SyncSummary {
  pages: number;
  entries: number;
  firstSeen: number;
  skipped: number;
  unlisted: number;
}

export interface SyncDeps {
  registry: RegistryStore;
  clock: Clock;
  url: string;
  fetch: SafeFetchOptions;
}

/** Stopped by its signal (shutdown) before the walk was complete; nothing was marked deleted. */
class SyncStopped extends Error {}

/** Walks the listing, and records the attempt (success, or the reason it failed) for the pages to show. */
export async function syncRegistry(deps: SyncDeps, opts: { onPage?: (s: SyncSummary) => void; signal?: AbortSignal } = {}): Promise<SyncSummary> {
  const started = deps.clock.now();
  const summary: SyncSummary = { pages: 0, entries: 0, firstSeen: 0, skipped: 0, unlisted: 0 };
  const fetchOptions = opts.signal ? { ...deps.fetch, signal: opts.signal } : deps.fetch;
  try {
    for await (const page of readListing(deps.url, fetchOptions)) {
      if (opts.signal?.aborted) throw new SyncStopped('registry sync stopped before the listing was complete');
      const created = await deps.registry.upsertServers(page.entries, deps.clock.now());
      summary.pages++;
      summary.entries += page.entries.length;
      summary.firstSeen += created.length;
      summary.skipped += page.skipped;
      opts.onPage?.(summary);
    }
    summary.unlisted = await deps.registry.markUnlisted(started);
  } catch (err) {
    // A shutdown is no failure of the registry's.
    if (!(err instanceof SyncStopped) && !opts.signal?.aborted) {
      await deps.registry.recordSync({ at: started, ok: false, error: `${deps.url}: ${err instanceof Error ? err.message : String(err)}` }).catch(() => undefined);
    }
    throw err;
  }
  await deps.registry.recordSync({ at: started, ok: true, entries: summary.entries });
  return summary;
}
