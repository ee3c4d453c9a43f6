/** An embedding call with a time budget, shared by the search's query vector and publishing's vectors. */
import type { Embedder } from '../../ports/embedder.js';

/**
 * The vectors of `texts`, or null once `budgetMs` has passed first (the call is then aborted,
 * with `why`, for an embedder that can stop early). Rejects as `embed` does.
 */
export async function embedWithin(embedder: Embedder, texts: readonly string[], budgetMs: number, why: string): Promise<(Float32Array | null)[] | null> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), budgetMs);
  });
  try {
    const vectors = await Promise.race([embedder.embed(texts, controller.signal), timeout]);
    if (vectors === null) controller.abort(new Error(why));
    return vectors;
  } finally {
    clearTimeout(timer);
  }
}
