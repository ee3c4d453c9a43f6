/**
 * The two legs' hits as one list of candidates, each above its leg's relevance floor, and their
 * final scores (ranking.ts): what a search orders before it reads any object in full.
 */
import type { BoardLimits } from '../../domain/limits.js';
import type { CandidateFacts, LexicalHit, SemanticHit } from '../../ports/search-index.js';
import { finalScore, fuse, legFloor, spread, type MatchTier } from './ranking.js';
import { fold, matchTier } from './text-match.js';

type SearchLimits = BoardLimits['search'];

export interface Candidate {
  facts: CandidateFacts;
  lexical?: { relevance: number; tier: MatchTier };
  semantic?: { similarity: number };
}

/** A candidate with its final score. */
export interface Ranked {
  c: Candidate;
  final: number;
}

/** Both legs' hits above their floors, an object both found being one candidate. */
export function candidatesOf(q: string, lexHits: readonly LexicalHit[], semHits: readonly SemanticHit[], limits: SearchLimits): Candidate[] {
  const candidates: Candidate[] = [];
  const relevances = lexHits.map((h) => h.relevance);
  const lexFloor = legFloor(relevances, limits.lexicalFloor);
  const lexSpread = spread(relevances);
  const foldedQuery = fold(q);
  for (const h of lexHits) {
    const tier = matchTier(foldedQuery, h, h.text?.title ?? '', h.text?.content ?? '');
    // Holding every query word makes a lexical result, however common the words.
    if (tier === 0 && h.relevance < lexFloor) continue;
    candidates.push({ facts: h, lexical: { relevance: lexSpread(h.relevance), tier } });
  }
  if (semHits.length === 0) return candidates;
  // The legs meet by id, indexed only when both ran (docs/performance.md).
  const byId = new Map<string, Candidate>();
  for (const c of candidates) byId.set(c.facts.id, c);
  const similarities = semHits.map((h) => h.similarity);
  const semFloor = legFloor(similarities, limits.semanticFloor, limits.semanticMinSimilarity);
  const semSpread = spread(similarities);
  for (const h of semHits) {
    if (h.similarity < semFloor) continue;
    const semantic = { similarity: semSpread(h.similarity) };
    const c = byId.get(h.id);
    if (c) c.semantic = semantic;
    else candidates.push({ facts: h, semantic });
  }
  return candidates;
}

/** Each candidate's final score, from the legs that ran. */
export function rank(candidates: readonly Candidate[], ran: { lexicalRuns: boolean; semanticRan: boolean; now: number }, limits: SearchLimits): Ranked[] {
  const { lexicalRuns, now } = ran;
  const both = lexicalRuns && ran.semanticRan;
  const params = { halfLifeDays: limits.halfLifeDays, freshnessFloor: limits.freshnessFloor, relevanceExponent: limits.relevanceExponent };
  return candidates.map((c): Ranked => {
    const lex = c.lexical?.relevance ?? 0;
    const sem = c.semantic?.similarity ?? 0;
    // A text holding the whole query verbatim is ranked as lexical mode ranks it: nearness in
    // meaning adds nothing to an exact match, and must not reorder exact error strings.
    const fused = both && c.lexical?.tier !== 2;
    const relevance = fused ? fuse(lex, sem, limits.semanticWeight) : lexicalRuns ? lex : sem;
    const tierWeight = fused ? limits.hybridTierWeight : lexicalRuns ? 1 : 0;
    const final = finalScore(
      { tier: c.lexical?.tier ?? 0, relevance, ageMs: now - c.facts.createdAt, verifications: c.facts.verificationCount, contradictions: c.facts.contradictionCount },
      params,
      tierWeight,
    );
    return { c, final };
  });
}
