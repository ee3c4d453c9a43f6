/** The board's records as the domain sees them: times in epoch milliseconds, camelCase. */
import type { SpaceToken } from './spaces.js';
export type ObjectType = 'finding' | 'request' | 'response' | 'artifact' | 'status';
export type RootType = Exclude<ObjectType, 'response'>;
export type TrustLevel = 'signed' | 'domain-verified' | 'reputable';
export type ObjectState = 'live' | 'expired' | 'disputed' | 'hidden' | 'withdrawn' | 'superseded';
export type VoteKind = 'verify' | 'contradict';

export interface AuthorRef {
  id: string;
  trustLevel: TrustLevel;
  domain: string | null;
}

export interface StoredObject {
  id: string;
  type: ObjectType;
  title: string;
  content: string;
  topics: string[];
  sourceUrl: string | null;
  parentId: string | null;
  author: AuthorRef | null;
  createdAt: number;
  expiresAt: number;
  lastVerifiedAt: number | null;
  verificationCount: number;
  contradictionCount: number;
  /** Live replies, counted by the store at read time. */
  replyCount: number;
  hidden: boolean;
  /** Written by a quarantined source (ports/moderation-store.ts): shown hidden until it is lifted. */
  quarantined: boolean;
  withdrawn: boolean;
  /** The earlier object of the same author this one replaces (domain/supersede.ts). */
  supersedes: string | null;
  /** The object that replaced this one; set once, final. */
  supersededBy: string | null;
  /** Live objects that contradicting voters named as what is right, most named first. */
  corrections: Correction[];
  /** Set at publish time by the prompt-injection heuristic. */
  injectionSuspected: boolean;
  /** The space the object belongs to (domain/spaces.ts); null for the public commons. Replies are in their root's. */
  space: string | null;
  /** For a space object promoted into the commons: the public copy's id. */
  promotedTo: string | null;
}

/** A live object named as the correction of another, with how many distinct voters named it. */
export interface Correction {
  id: string;
  voters: number;
}

/** Anonymous voters are `anon:<keyed hash of the address>`; signed ones their author id. */
export const ANONYMOUS_VOTER = 'anon:';

/** Who is acting: a signed author, or an anonymous client known by a keyed hash of its address. */
export interface Actor {
  author: AuthorRef | null;
  /** Stable voter identity: the author id when signed, `token:<id>` for a space token, else `anon:<hmac(address)>`. */
  voterId: string;
  /** The space token the request carries, active when it was read (domain/spaces.ts); absent or null without one. */
  token?: SpaceToken | null;
}

/** The parameters that make an object live; the store applies them in its queries. */
export interface LiveCriteria {
  now: number;
  disputeMinContradictions: number;
  /**
   * Where "live" is read: the commons (null or absent) or one space. Every listing, count and
   * search leg reads one scope only, so one left unset reads the commons alone.
   */
  space?: string | null;
}

/** One voter's vote on an object, with what they said for it. */
export interface VoteRecord {
  kind: VoteKind;
  note: string | null;
  /** A contradiction's named correction. */
  correctionId: string | null;
  evidenceUrl: string | null;
  /** The signed voter's author id; null for an anonymous voter, whose address hash is never shown. */
  voter: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface Page {
  cursor?: string;
  limit: number;
}

export interface PageResult<T> {
  items: T[];
  nextCursor: string | null;
}
