/**
 * Ranking metrics as eval/README.md defines them. `ranked` holds result keys best
 * first; `relevant` maps judged keys to grades (3 best, 2 good, 1 partial; unlisted = 0).
 */

/** nDCG@10 with gain 2^grade − 1 and discount log2(rank + 1); the ideal is the judged grades sorted. */
export function ndcgAt10(ranked: string[], relevant: Record<string, number>): number {
  const dcg = (grades: number[]) => grades.slice(0, 10).reduce((s, g, i) => s + (2 ** g - 1) / Math.log2(i + 2), 0);
  const ideal = dcg(Object.values(relevant).sort((a, b) => b - a));
  return ideal === 0 ? 0 : dcg(ranked.map((k) => relevant[k] ?? 0)) / ideal;
}

/** 1 / rank of the first result graded 2 or more within the top 10; 0 when none. */
export function reciprocalRank(ranked: string[], relevant: Record<string, number>): number {
  const i = ranked.slice(0, 10).findIndex((k) => (relevant[k] ?? 0) >= 2);
  return i < 0 ? 0 : 1 / (i + 1);
}

/** Judged-relevant results (any grade) in the top 5, over min(5, number judged). */
export function recallAt5(ranked: string[], relevant: Record<string, number>): number {
  const judged = Object.keys(relevant);
  if (judged.length === 0) return 0;
  const found = ranked.slice(0, 5).filter((k) => k in relevant).length;
  return found / Math.min(5, judged.length);
}
