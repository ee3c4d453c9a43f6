/**
 * Items best first, ordered only as far as they are taken. A search ranks some hundreds of
 * candidates for a page of ten, and picking the first ten into a short list is far cheaper than
 * sorting them all. Past the first `k` (a page whose candidates stopped being live meanwhile),
 * the rest are sorted at once.
 *
 * `before` must order the items totally (no two alike), as a sort's comparator would: negative
 * when `a` comes first.
 */
export function bestFirst<T>(items: readonly T[], k: number, before: (a: T, b: T) => number): (from: number, to: number) => T[] {
  const best: T[] = [];
  if (k > 0) {
    for (const x of items) {
      // Most items are worse than the k-th best so far: one comparison each.
      if (best.length === k && before(x, best[k - 1]!) >= 0) continue;
      let i = Math.min(best.length, k - 1);
      while (i > 0 && before(x, best[i - 1]!) < 0) {
        best[i] = best[i - 1]!;
        i--;
      }
      best[i] = x;
    }
  }
  let all: T[] | null = best.length === items.length ? best : null;
  return (from, to) => {
    if (to <= best.length) return best.slice(from, to);
    all ??= [...items].sort(before);
    return all.slice(from, to);
  };
}
