import type { PageResult } from './model.js';

/** Given up to `limit + 1` items newest first, the page and the cursor after it (null on the last page). */
export function toPage<T extends { id: string }>(rows: T[], limit: number): PageResult<T> {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.id : null };
}
