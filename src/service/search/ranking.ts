/**
 * The one ranking function of search. Pure maths, unit-tested, documented in the README:
 *
 *   final = tier + relevance × freshness × evidence / 1.5
 *
 * - tier: 2 when the text contains the query verbatim (punctuation and all), 1 when it holds
 *   every query term, 0 otherwise — so an exact error string always outranks looser matches;
 * - relevance: the leg's relevance relative to its best candidate, in (0, 1];
 * - freshness: 0.5^(age / half-life), never below the floor (defaults 14 days, 0.35);
 * - evidence: 1 + ½·LB(verifications) − ½·LB(contradictions), LB the Wilson lower bound
 *   (95%) of each share of the votes: in [0.5, 1.5], 1 with no votes. Dividing by its
 *   maximum keeps the second term below 1, so it never crosses a tier.
 * `score` is `final` relative to the top result.
 */
const DAY_MS = 86_400_000;
const Z = 1.96;

export function freshness(ageMs: number, halfLifeDays: number, floor: number): number {
  const age = Math.max(0, ageMs) / DAY_MS;
  return Math.max(floor, Math.pow(0.5, age / halfLifeDays));
}

/** Wilson score lower bound of `k` successes in `n` trials; 0 when n = 0. */
export function wilsonLowerBound(k: number, n: number): number {
  if (n <= 0) return 0;
  const p = k / n;
  const z2 = Z * Z;
  const centre = p + z2 / (2 * n);
  const margin = Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return Math.max(0, (centre - margin) / (1 + z2 / n));
}

export const EVIDENCE_MAX = 1.5;

export function evidence(verifications: number, contradictions: number): number {
  const n = verifications + contradictions;
  return 1 + 0.5 * wilsonLowerBound(verifications, n) - 0.5 * wilsonLowerBound(contradictions, n);
}

export type MatchTier = 0 | 1 | 2;

export interface RankInput {
  tier: MatchTier;
  relevance: number;
  ageMs: number;
  verifications: number;
  contradictions: number;
}

export interface RankParams {
  halfLifeDays: number;
  freshnessFloor: number;
  /** relevance^exponent before weighing; 1 leaves it as is. */
  relevanceExponent?: number;
}

/** `tierWeight × tier + relevance × freshness × evidence / 1.5`; lexical mode uses tierWeight 1. */
export function finalScore(r: RankInput, p: RankParams, tierWeight = 1): number {
  const rel = Math.min(1, Math.max(0, r.relevance)) ** (p.relevanceExponent ?? 1);
  return tierWeight * r.tier + (rel * freshness(r.ageMs, p.halfLifeDays, p.freshnessFloor) * evidence(r.verifications, r.contradictions)) / EVIDENCE_MAX;
}

/**
 * Each leg's scores spread over [0, 1]: the best gets 1, and 0 goes to the worst candidate or
 * to half the best score, whichever is lower. Raw scores bunch up near the top (cosines of
 * 0.45, 0.43, 0.42), which would let freshness reorder results that are not equally relevant;
 * the half-of-best floor keeps two near-equal candidates near-equal.
 */
export function spread(scores: readonly number[]): (score: number) => number {
  const max = Math.max(...scores);
  const low = Math.min(...scores, max / 2);
  return (x) => (max - low <= 0 ? 1 : Math.max(0, (x - low) / (max - low)));
}

/**
 * A leg's relevance floor: a candidate scoring below it is not a result. It is a share of the
 * leg's best score (a weak tail match only adds noise) and, for the semantic leg, an absolute
 * minimum too, so that on a board with nothing related the nearest unrelated object is not
 * offered as a match.
 */
export function legFloor(scores: readonly number[], share: number, minimum = Number.NEGATIVE_INFINITY): number {
  return Math.max(minimum, Math.max(...scores) * share);
}

/**
 * Hybrid relevance: a convex mix of each leg's spread relevance (0 when the leg did not find
 * the object), `semanticWeight` being the semantic share.
 */
export function fuse(lexical: number, semantic: number, semanticWeight: number): number {
  return (1 - semanticWeight) * lexical + semanticWeight * semantic;
}
