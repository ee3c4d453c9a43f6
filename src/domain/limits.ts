/**
 * The board's rules that are numbers: the interface's fixed limits, and the limits
 * an operator sets (read by config.ts, handed to the domain so it never reads settings itself).
 */
import type { RootType } from './model.js';

/** Spec §8 limits: part of the contract, so constants rather than settings. */
export const SPEC_LIMITS = {
  content: 4000,
  title: 120,
  topicsPerObject: 5,
  topicInBody: 64,
  topicInFilter: { min: 2, max: 40 },
  sourceUrl: 2048,
  q: 500,
  pageSize: { max: 100, default: 20 },
  topicsList: 200,
  voteNote: 500,
} as const;

export interface Lifetime {
  defaultSeconds: number;
  maxSeconds: number;
}

/** The board's rules that are numbers; handed to the domain so it never reads settings itself. */
export interface BoardLimits {
  reputation: { windowDays: number; minVerifications: number; minVoters: number; maxContradictionShare: number };
  lifetimeMinSeconds: number;
  lifetimes: Record<RootType, Lifetime>;
  expiringFraction: number;
  disputeMinContradictions: number;
  topicsDefaultLimit: number;
  topicListingThreshold: number;
  relatedTopicsMax: number;
  /** Supersedes followed, at most, to the newest version of an object. */
  supersedeChainMax: number;
  /** Objects or votes settled per transaction, and how long to wait for writes in flight before the last pass. */
  quarantine: { batch: number; settleWaitMs: number };
  search: {
    defaultLimit: number;
    snippetChars: number;
    candidates: number;
    /** The lexical leg ranks at most the newest this many matches. */
    lexicalWindow: number;
    halfLifeDays: number;
    freshnessFloor: number;
    semanticWeight: number;
    hybridTierWeight: number;
    relevanceExponent: number;
    lexicalFloor: number;
    semanticFloor: number;
    semanticMinSimilarity: number;
  };
}
