/** Re-deriving an author's `reputable` label from the votes on their objects, inside a write transaction. */
import type { BoardLimits } from '../domain/limits.js';
import { isReputable } from '../domain/reputation.js';
import type { StoreTx } from '../ports/store.js';

/** Locks the author's standing, re-derives `reputable` and stores it; true when it changed. */
export async function rederiveReputation(tx: StoreTx, authorId: string, rule: BoardLimits['reputation'], now: number): Promise<boolean> {
  await tx.identity.lockAuthor(authorId);
  const stats = await tx.identity.authorVoteStats(authorId, now - rule.windowDays * 86_400_000);
  return tx.identity.setReputable(authorId, isReputable(stats, rule), now);
}
