/**
 * Export: every object in any state as NDJSON, one Object (as GET /p/{id} shows it) per line in id order,
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
  o: { clock: Clock; limits: BoardLimits; baseUrl: string; onProgress?: (count: number) => void },
): Promise<number> {
  let after: string | null = null;
  let count = 0;
  for (;;) {
    const live = { now: o.clock.now(), disputeMinContradictions: o.limits.disputeMinContradictions };
    const page = await store.objects.scan(after, PAGE, live);
    if (page.length === 0) break;
    const ctx = { baseUrl: o.baseUrl, live, expiringFraction: o.limits.expiringFraction };
    const chunk = page.map((obj) => JSON.stringify(exportedObject(obj, ctx))).join('\n') + '\n';
    if (!out.write(chunk)) await once(out, 'drain');
    count += page.length;
    after = page[page.length - 1]!.id;
    o.onProgress?.(count);
  }
  return count;
}
