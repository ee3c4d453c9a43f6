/**
 * The objects table as both SQL stores lay it out: a new object's values to bind, and a read
 * row's mapping back. Only topics (JSON text or an array) and flags (0/1 or booleans) differ.
 * What the board's rules make of a row (its standing, its shown trust) comes from the domain.
 */
import type { Correction, ObjectType, StoredObject, TrustLevel } from '../domain/model.js';
import { shownTrust } from '../domain/reputation.js';
import { liveUntil, type StandingFacts } from '../domain/state.js';
import type { NewObject } from '../ports/object-store.js';
import type { CandidateFacts } from '../ports/search-index.js';

/** The columns `live_until` is derived from, as a statement lists them. */
export const STANDING_COLUMNS = 'hidden, quarantined, withdrawn, superseded_by, expires_at, verification_count, contradiction_count';

export interface StandingColumns<Flag> {
  hidden: Flag;
  quarantined: Flag;
  withdrawn: Flag;
  superseded_by: string | null;
  expires_at: number;
  verification_count: number;
  contradiction_count: number;
}

export const standingFacts = <Flag>(row: StandingColumns<Flag>, flag: (v: Flag) => boolean): StandingFacts => ({
  hidden: flag(row.hidden),
  quarantined: flag(row.quarantined),
  withdrawn: flag(row.withdrawn),
  supersededBy: row.superseded_by,
  expiresAt: row.expires_at,
  verificationCount: row.verification_count,
  contradictionCount: row.contradiction_count,
});

/** A read object row, but for its topics; `Flag` is how the engine returns a boolean. */
export interface ObjectColumns<Flag> extends StandingColumns<Flag> {
  seq: number;
  id: string;
  type: string;
  title: string;
  content: string;
  source_url: string | null;
  parent_id: string | null;
  author_id: string | null;
  /** The trust the author's signature earned; `author_reputable` says whether they are reputable now. */
  author_trust: string | null;
  author_reputable: Flag;
  author_domain: string | null;
  created_at: number;
  last_verified_at: number | null;
  injection: Flag;
  supersedes: string | null;
  /** '' for the commons. */
  space: string;
  promoted_to: string | null;
  reply_count: number;
  /** [[id, voters], …] most named first (CORRECTIONS_SQL): JSON text, or as the driver parsed it; null for none. */
  corrections: string | [string, number][] | null;
}

/**
 * The live corrections contradicting voters named for the object on the table aliased `o`, as
 * `[[id, voters], …]` most named first, null for none; `agg` is the engine's JSON aggregate of
 * `json_array`-like rows of `k`. Read off the partial index of votes that name one.
 */
export const correctionsSql = (agg: (row: string, order: string) => string, pair: (a: string, b: string) => string) =>
  `(SELECT ${agg(pair('k.id', 'k.voters'), 'k.voters DESC, k.id')} FROM (SELECT v.correction_id AS id, count(*) AS voters FROM votes v JOIN objects c ON c.id = v.correction_id
    WHERE v.object_id = o.id AND v.correction_id IS NOT NULL AND NOT v.quarantined AND c.live_until > @now GROUP BY v.correction_id) k)`;

const correctionsOf = (raw: ObjectColumns<unknown>['corrections']): Correction[] => {
  const pairs = typeof raw === 'string' ? (JSON.parse(raw) as [string, number][]) : raw;
  return pairs ? pairs.map(([id, voters]) => ({ id, voters: Number(voters) })) : [];
};

export function toStoredObject<Flag>(row: ObjectColumns<Flag>, topics: string[], flag: (v: Flag) => boolean): StoredObject {
  return {
    id: row.id,
    type: row.type as ObjectType,
    title: row.title,
    content: row.content,
    topics,
    sourceUrl: row.source_url,
    parentId: row.parent_id,
    author: row.author_id ? { id: row.author_id, trustLevel: shownTrust(row.author_trust as TrustLevel, flag(row.author_reputable)), domain: row.author_domain } : null,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastVerifiedAt: row.last_verified_at,
    verificationCount: row.verification_count,
    contradictionCount: row.contradiction_count,
    replyCount: row.reply_count,
    hidden: flag(row.hidden),
    quarantined: flag(row.quarantined),
    withdrawn: flag(row.withdrawn),
    supersedes: row.supersedes,
    supersededBy: row.superseded_by,
    corrections: correctionsOf(row.corrections),
    injectionSuspected: flag(row.injection),
    space: row.space || null,
    promotedTo: row.promoted_to ?? null,
  };
}

/** What a search candidate is read as (ports/search-index.ts), from the objects table aliased `o`. */
export const CANDIDATE_COLUMNS = 'o.id, o.created_at, o.verification_count, o.contradiction_count';

export type CandidateColumns = Pick<ObjectColumns<unknown>, 'id' | 'created_at' | 'verification_count' | 'contradiction_count'>;

/** CANDIDATE_COLUMNS as a row of values, in their order. */
export type CandidateRow = [id: string, createdAt: number, verificationCount: number, contradictionCount: number];

/** The candidate columns at the start of a row of values (a query's may go on with its own). */
export const candidateColumns = ([id, created_at, verification_count, contradiction_count]: readonly [...CandidateRow, ...unknown[]]): CandidateColumns => ({ id, created_at, verification_count, contradiction_count });

/** CANDIDATE_COLUMNS' values a column at a time (PostgreSQL's allAsColumns), at the start of a statement's columns. */
export type CandidateValues = [ids: string[], createdAt: number[], verificationCounts: number[], contradictionCounts: number[]];

/** The candidate columns of row `i` of values taken a column at a time. */
export const candidateColumnsAt = ([ids, createdAt, verifications, contradictions]: readonly [...CandidateValues, ...unknown[]], i: number): CandidateColumns => ({
  id: ids[i]!,
  created_at: createdAt[i]!,
  verification_count: verifications[i]!,
  contradiction_count: contradictions[i]!,
});

/** The candidate with the leg's own fields (`extra`), built as one literal: spreads cost more than the query per row. */
export const toCandidate = <Extra extends object>(row: CandidateColumns, extra: Extra): CandidateFacts & Extra =>
  Object.assign({ id: row.id, createdAt: row.created_at, verificationCount: row.verification_count, contradictionCount: row.contradiction_count }, extra);

/** A new object's values to bind; `live_until` as the domain derives it (imports may bring hidden, withdrawn, superseded and counts). */
export function objectParams(o: NewObject & { hidden?: boolean; withdrawn?: boolean; supersededBy?: string | null; quarantined?: boolean; promotedTo?: string | null }, minContradictions: number) {
  const facts: StandingFacts = {
    hidden: o.hidden ?? false,
    quarantined: o.quarantined ?? false,
    withdrawn: o.withdrawn ?? false,
    supersededBy: o.supersededBy ?? null,
    expiresAt: o.expiresAt,
    verificationCount: o.verificationCount ?? 0,
    contradictionCount: o.contradictionCount ?? 0,
  };
  return {
    id: o.id,
    type: o.type,
    title: o.title,
    content: o.content,
    // Hyphens split into words, so `connection-pool` matches the query "connection pool".
    topicsText: o.topics.map((t) => t.replace(/-/g, ' ')).join(' '),
    sourceUrl: o.sourceUrl,
    parentId: o.parentId,
    authorId: o.author?.id ?? null,
    authorTrust: o.author?.trustLevel ?? null,
    authorDomain: o.author?.domain ?? null,
    createdAt: o.createdAt,
    expiresAt: o.expiresAt,
    lastVerifiedAt: o.lastVerifiedAt ?? null,
    verifications: facts.verificationCount,
    contradictions: facts.contradictionCount,
    hidden: facts.hidden,
    quarantined: facts.quarantined,
    withdrawn: facts.withdrawn,
    supersedes: o.supersedes ?? null,
    supersededBy: facts.supersededBy,
    liveUntil: liveUntil(facts, minContradictions),
    dedupeKey: o.dedupeKey,
    space: o.space ?? '',
    promotedTo: o.promotedTo ?? null,
  };
}

/** A new object's row as it reads back once inserted with `p` (objectParams) under `seq`: no replies yet. */
function insertedColumns(p: ReturnType<typeof objectParams>, seq: number, injection: boolean, authorReputable: boolean): ObjectColumns<boolean> {
  return {
    seq,
    id: p.id,
    type: p.type,
    title: p.title,
    content: p.content,
    source_url: p.sourceUrl,
    parent_id: p.parentId,
    author_id: p.authorId,
    author_trust: p.authorTrust,
    author_reputable: authorReputable,
    author_domain: p.authorDomain,
    created_at: p.createdAt,
    expires_at: p.expiresAt,
    last_verified_at: p.lastVerifiedAt,
    verification_count: p.verifications,
    contradiction_count: p.contradictions,
    hidden: p.hidden,
    quarantined: p.quarantined,
    withdrawn: p.withdrawn,
    superseded_by: p.supersededBy,
    supersedes: p.supersedes,
    space: p.space,
    promoted_to: p.promotedTo,
    injection,
    reply_count: 0,
    corrections: null,
  };
}

/**
 * The object `o` as it reads back once inserted with `p` (objectParams) under `seq`: the row
 * holds what was bound, as it was bound, so only its seq and its author's standing are the
 * engine's, and reading the row back would cost the insert more.
 */
export const insertedObject = (o: NewObject, p: ReturnType<typeof objectParams>, seq: number, authorReputable: boolean): StoredObject =>
  toStoredObject(insertedColumns(p, seq, o.injectionSuspected, authorReputable), [...o.topics], (v) => v);
