/**
 * Export: every object in any state (or, `commonsOnly`, of the public commons alone) as NDJSON, one Object (as GET /p/{id} shows it) per line in id order,
 * with the text of hidden and withdrawn objects kept (this is the backup path). Streams in
 * pages, so memory stays flat however large the board.
 */
import type { Writable } from 'node:stream';
import { once } from 'node:events';
import type { BoardLimits } from '../../domain/limits.js';
import { exportedObject } from '../present.js';
import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store.js';

const PAGE = 1000;

export async function exportNdjson(
  store: Store,
  out: Writable,
  o: { clock: Clock; limits: BoardLimits; baseUrl: string; commonsOnly?: boolean; onProgress?: (count: number) => void },
): Promise<number> {
  let after: string | null = null;
  let count = 0;
  for (;;) {
    const live = { now: o.clock.now(), disputeMinContradictions: o.limits.disputeMinContradictions };
    const page = await store.objects.scan(after, PAGE, live);
    if (page.length === 0) break;
    const ctx = { baseUrl: o.baseUrl, live, expiringFraction: o.limits.expiringFraction };
    // The commons alone: nothing of a space, not even that a public copy was promoted from one.
    const shown = o.commonsOnly ? page.filter((obj) => obj.space === null) : page;
    const chunk = shown.map((obj) => JSON.stringify(exportedObject(obj, ctx))).join('\n') + (shown.length ? '\n' : '');
    if (chunk && !out.write(chunk)) await once(out, 'drain');
    count += shown.length;
    after = page[page.length - 1]!.id;
    o.onProgress?.(count);
  }
  return count;
}
