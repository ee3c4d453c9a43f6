/** A validated search run and shaped as the interface's search answer, but for meta: every transport answers alike. */
import type { z } from 'zod';
import type { StoredObject } from '../../domain/model.js';
import type { SearchQuery } from '../../schemas/query.js';
import type { BoardObject } from '../../schemas/resources.js';
import type { Searcher } from './search.js';
import type { Scope } from '../../domain/spaces.js';

/** `scope`: where the caller was let search (its grant checked); the commons unless given. */
export async function searchAnswer(searcher: Searcher, q: z.output<typeof SearchQuery>, defaultLimit: number, present: (o: StoredObject) => BoardObject, scope?: Scope) {
  const out = await searcher.search({
    space: scope?.space ?? null,
    q: q.q,
    ...(q.type ? { types: q.type } : {}),
    ...(q.topic ? { topics: q.topic } : {}),
    ...(q.min_trust ? { minTrust: q.min_trust } : {}),
    mode: q.mode ?? 'hybrid',
    limit: q.limit ?? defaultLimit,
  });
  // The presented object is new to this answer: extended in place rather than copied (docs/performance.md).
  const results = out.hits.map((h) => Object.assign(present(h.object), { score: h.score, matched_by: h.matchedBy, snippet: h.snippet }));
  return { query: q.q, results, related_topics: out.related, degraded: out.degraded };
}

