/**
 * The moderation half of the Store port: quarantines of a source (a key, or every key verified
 * for a domain) and the moderators' audit log. A quarantine is applied and lifted in batches,
 * each its own transaction, so reads never wait for a whole source: objects the source wrote
 * are marked `quarantined` (shown hidden, not live), and votes it cast stop counting on their
 * targets. Flags are derived from the active quarantines, so overlapping ones lift cleanly and
 * a moderator's own `hidden` is never touched.
 */
import type { ObjectType } from '../domain/model.js';

/** Who a quarantine cuts off: one key, or every key verified for one domain. */
export type QuarantineSource = { keyid: string; domain: null } | { keyid: null; domain: string };

export interface QuarantineRecord {
  id: string;
  source: QuarantineSource;
  reason: string;
  createdAt: number;
  liftedAt: number | null;
  /** Objects hidden and objects whose counts moved, as applied so far. */
  affected: number;
}

export type ModerationAction = 'hide' | 'unhide' | 'quarantine' | 'lift';

export interface AuditEntry {
  seq: number;
  action: ModerationAction;
  /** An object id, `keyid:<keyid>` or `domain:<domain>`. */
  target: string;
  reason: string | null;
  affected: number;
  at: number;
}

/** An object a batch changed, as its `updated` event needs it. */
export interface Touched {
  id: string;
  type: ObjectType;
  topics: string[];
  parentId: string | null;
  authorId: string | null;
  space: string | null;
}

export interface ModerationStore {
  /** Records a new active quarantine, or answers the active one for the same source (`created: false`): two racing calls apply it once. */
  open(q: { id: string; source: QuarantineSource; reason: string; at: number }): Promise<{ record: QuarantineRecord; created: boolean }>;
  get(id: string): Promise<QuarantineRecord | null>;
  /** Marks the quarantine lifted; false when it was already lifted (or is unknown). */
  markLifted(id: string, at: number): Promise<boolean>;
  /** Adds to the quarantine's affected count, as it is applied (a lift does not count). */
  countAffected(id: string, n: number): Promise<void>;
  /** Whether an active quarantine covers the key, or the domain it is verified for. */
  isQuarantined(keyid: string, domain: string | null): Promise<boolean>;

  /**
   * Inside withTransaction: at most `limit` objects of the source whose quarantined flag
   * differs from what the active quarantines say, set to it (and their standing re-derived).
   * Answers them; fewer than `limit` means none is left.
   */
  settleObjects(source: QuarantineSource, limit: number, minContradictions: number): Promise<Touched[]>;
  /**
   * Inside withTransaction: as settleObjects, for the votes the source cast; each vote whose
   * flag moves takes its weight off its target's counts, or gives it back. Answers the targets
   * whose counts moved (each once), and how many votes moved.
   */
  settleVotes(source: QuarantineSource, limit: number, minContradictions: number): Promise<{ targets: Touched[]; votes: number }>;

  /** Appends to the audit log. */
  log(e: Omit<AuditEntry, 'seq'>): Promise<void>;
  /** Audit entries newest first, before `before` (a seq) when given. */
  audit(q: { before?: number; limit: number }): Promise<AuditEntry[]>;
  /**
   * Resolves once every transaction that was running when it was called has ended (shared
   * stores; at once where writers are serialized), so a last settling pass sees what they wrote;
   * or once `maxMs` have passed, whichever comes first.
   */
  quiesce(maxMs: number): Promise<void>;
}
