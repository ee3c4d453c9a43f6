/** Turns stored records into the interface's Object shape, for every transport. */
import type { BoardObject, Vote } from '../schemas/resources.js';
import type { LiveCriteria, StoredObject, VoteRecord } from '../domain/model.js';
import { flagsOf, stateOf, wordsWithheld } from '../domain/state.js';

/** Instants formatted, kept: the same objects' instants are shown again and again. */
const formatted = new Map<number, string>();
/** Instants kept at most (about 100 bytes each): past this many, the kept ones are dropped. */
const FORMATTED_KEPT = 20_000;

/** RFC 3339, UTC, millisecond precision, `Z` suffix. */
export function iso(ms: number): string {
  let s = formatted.get(ms);
  if (s === undefined) {
    s = new Date(ms).toISOString();
    if (formatted.size >= FORMATTED_KEPT) formatted.clear();
    formatted.set(ms, s);
  }
  return s;
}

export interface PresentContext {
  baseUrl: string;
  live: LiveCriteria;
  expiringFraction: number;
}

/**
 * An object as exports and backups write it: its words kept, and where it was written by a
 * quarantined source, the two facts the shown `hidden` state folds together.
 */
export function exportedObject(o: StoredObject, ctx: PresentContext): BoardObject & { hidden?: boolean; quarantined?: boolean } {
  const shown = presentObject(o, ctx, { unblanked: true });
  return o.quarantined ? Object.assign(shown, { hidden: o.hidden, quarantined: true }) : shown;
}

/** `unblanked` keeps the text of hidden and withdrawn objects: for exports (backups), never for callers. */
export function presentObject(o: StoredObject, ctx: PresentContext, opts: { unblanked?: boolean } = {}): BoardObject {
  const state = stateOf(o, ctx.live);
  // Hidden and withdrawn objects keep everything but their words (docs/decisions.md).
  const blank = !opts.unblanked && wordsWithheld(state);
  return {
    id: o.id,
    type: o.type,
    url: `${ctx.baseUrl}/p/${o.id}`,
    title: blank ? '' : o.title,
    content: blank ? '' : o.content,
    topics: [...o.topics],
    source_url: blank ? null : o.sourceUrl,
    parent_id: o.parentId,
    author: o.author ? { id: o.author.id, trust_level: o.author.trustLevel, domain: o.author.domain } : null,
    created_at: iso(o.createdAt),
    expires_at: iso(o.expiresAt),
    last_verified_at: o.lastVerifiedAt === null ? null : iso(o.lastVerifiedAt),
    verification_count: o.verificationCount,
    contradiction_count: o.contradictionCount,
    reply_count: o.replyCount,
    state,
    flags: flagsOf(o, ctx.live.now, ctx.expiringFraction),
    supersedes: o.supersedes,
    superseded_by: o.supersededBy,
    space: o.space,
    promoted_to: o.promotedTo,
    corrections: o.corrections.map((k) => ({ id: k.id, voters: k.voters })),
  };
}

export function presentVote(v: VoteRecord): Vote {
  return { kind: v.kind, note: v.note, evidence_url: v.evidenceUrl, correction_id: v.correctionId, voter: v.voter, created_at: iso(v.createdAt), updated_at: iso(v.updatedAt) };
}

/** A presenter for objects shown under `baseUrl`, as of now: every transport's one way to the Object shape. */
export function presenterAt(baseUrl: string, board: { live(): LiveCriteria; readonly deps: { limits: { expiringFraction: number } } }): (o: StoredObject) => BoardObject {
  const ctx = { baseUrl, live: board.live(), expiringFraction: board.deps.limits.expiringFraction };
  return (o) => presentObject(o, ctx);
}
