/**
 * Quarantine: the moderators' tool against a poisoning source. Opening one hides every object
 * the key (or any key verified for the domain) wrote and takes its votes off their targets, in
 * batches of their own transactions, so reads go on meanwhile; lifting it gives back exactly
 * what it took (ports/moderation-store.ts derives every flag from the active quarantines). Each
 * object whose state or counts moved gets an `updated` event, and the audit log a line.
 */
import { DomainError, notFound } from '../domain/errors.js';
import { eventOf } from '../domain/events.js';
import type { BoardLimits } from '../domain/limits.js';
import type { Actor } from '../domain/model.js';
import type { Clock, Ids } from '../ports/clock.js';
import type { AuditEntry, QuarantineRecord, QuarantineSource } from '../ports/moderation-store.js';
import type { Store } from '../ports/store.js';
import { parseOrThrow } from '../schemas/parse.js';
import { QuarantineBody } from '../schemas/moderation.js';
import { rederiveReputation } from './reputation-upkeep.js';

export interface QuarantineDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  limits: BoardLimits;
}

export type { QuarantineRecord };

const sourceTarget = (s: QuarantineSource): string => (s.keyid !== null ? `keyid:${s.keyid}` : `domain:${s.domain}`);

/** Refuses (403 `quarantined`) a write signed by a quarantined key, or one verified for a quarantined domain. */
export async function refuseQuarantined(store: Store, actor: Actor): Promise<void> {
  if (actor.author && (await store.moderation.isQuarantined(actor.author.id, actor.author.domain))) throw quarantinedError();
}

export const quarantinedError = () => new DomainError('quarantined', 'A moderator quarantined the key that signed this request (or its domain): it may not write to this board.');

export class Quarantines {
  constructor(private readonly deps: QuarantineDeps) {}

  /** Opens a quarantine and applies it; the same source's active one is answered instead (`created: false`), applied once. */
  async open(body: unknown): Promise<{ record: QuarantineRecord; created: boolean }> {
    const input = parseOrThrow(QuarantineBody, body);
    const source: QuarantineSource = input.keyid !== undefined ? { keyid: input.keyid, domain: null } : { keyid: null, domain: input.domain! };
    const { store, clock, ids } = this.deps;
    const opened = await store.moderation.open({ id: ids.next(), source, reason: input.reason, at: clock.now() });
    if (!opened.created) return opened;
    let affected = await this.#settle(opened.record, true);
    // A write already in flight as it opened may land after the first pass: one more, once they have ended.
    await store.moderation.quiesce(this.deps.limits.quarantine.settleWaitMs);
    affected += await this.#settle(opened.record, true);
    await this.#log('quarantine', opened.record, affected);
    return { record: { ...opened.record, affected }, created: true };
  }

  /** Lifts a quarantine: what it hid and took comes back, but for what another active quarantine still covers. */
  async lift(id: string): Promise<{ record: QuarantineRecord; lifted: boolean }> {
    const { store, clock } = this.deps;
    const record = await store.moderation.get(id);
    if (!record) throw notFound(`No quarantine ${id}.`);
    if (!(await store.moderation.markLifted(id, clock.now()))) return { record, lifted: false };
    const affected = await this.#settle(record, false);
    await this.#log('lift', record, affected);
    return { record: { ...record, liftedAt: clock.now(), affected }, lifted: true };
  }

  async audit(page: { before?: number | undefined; limit: number }): Promise<{ entries: AuditEntry[]; next: number | null }> {
    const rows = await this.deps.store.moderation.audit({ ...(page.before !== undefined ? { before: page.before } : {}), limit: page.limit + 1 });
    const entries = rows.slice(0, page.limit);
    return { entries, next: rows.length > page.limit ? entries.at(-1)!.seq : null };
  }

  /**
   * Brings the source's objects, then its votes, to what the active quarantines say, a batch per
   * transaction; answers the objects that moved. With `tally`, each batch adds them to the
   * quarantine's own count, which a second ask while it applies is answered with.
   */
  async #settle(record: QuarantineRecord, tally: boolean): Promise<number> {
    const { store, limits } = this.deps;
    const { batch } = limits.quarantine;
    const scope = `quarantine ${sourceTarget(record.source)}`;
    let affected = 0;
    for (let moved = batch; moved >= batch; ) {
      moved = await store.withTransaction(scope, async (tx) => {
        const touched = await tx.moderation.settleObjects(record.source, batch, limits.disputeMinContradictions);
        const now = this.deps.clock.now();
        for (const t of touched) await tx.events.append(eventOf('updated', t, now));
        if (tally) await tx.moderation.countAffected(record.id, touched.length);
        return touched.length;
      });
      affected += moved;
    }
    for (let votes = batch; votes >= batch; ) {
      const settled = await store.withTransaction(scope, async (tx) => {
        const s = await tx.moderation.settleVotes(record.source, batch, limits.disputeMinContradictions);
        const now = this.deps.clock.now();
        // Authors in one order, so two batches never wait on each other's locks crosswise.
        for (const author of [...new Set(s.targets.map((t) => t.authorId).filter((a): a is string => a !== null))].sort()) {
          await rederiveReputation(tx, author, limits.reputation, now);
        }
        for (const t of s.targets) await tx.events.append(eventOf('updated', t, now));
        if (tally) await tx.moderation.countAffected(record.id, s.targets.length);
        return s;
      });
      votes = settled.votes;
      affected += settled.targets.length;
    }
    return affected;
  }

  async #log(action: 'quarantine' | 'lift', record: QuarantineRecord, affected: number): Promise<void> {
    await this.deps.store.withTransaction(`quarantine ${sourceTarget(record.source)}`, (tx) =>
      tx.moderation.log({ action, target: sourceTarget(record.source), reason: record.reason, affected, at: this.deps.clock.now() }),
    );
  }
}
