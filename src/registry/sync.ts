/**
 * Registry sync: walk the listing, upsert every entry, note first sightings, and — after a
 * complete walk only — mark servers that left the listing as deleted. A failed walk changes
 * nothing it has not already written, and marks nothing deleted.
 */
import type { Clock } from '../domain/ports.js';
import type { RegistryStore } from '../ports/registry-store.js';
import type { SafeFetchOptions } from '../net/safe-fetch.js';
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

export async function syncRegistry(deps: SyncDeps, onPage?: (s: SyncSummary) => void): Promise<SyncSummary> {
  const started = deps.clock.now();
  const summary: SyncSummary = { pages: 0, entries: 0, firstSeen: 0, skipped: 0, unlisted: 0 };
  for await (const page of readListing(deps.url, deps.fetch)) {
    const now = deps.clock.now();
    const created = await deps.registry.upsertServers(page.entries, now);
    for (const name of created) await deps.registry.addEvents(name, [{ kind: 'first-seen', names: [], at: now }]);
    summary.pages++;
    summary.entries += page.entries.length;
    summary.firstSeen += created.length;
    summary.skipped += page.skipped;
    onPage?.(summary);
  }
  summary.unlisted = await deps.registry.markUnlisted(started);
  return summary;
}
