/**
 * The correction rule of ranking: when a result and a live correction that voters named for it
 * (domain/corrections.ts) both match the query, the correction ranks above it, in every mode and
 * whatever else favours the result (a closer match, more verifications, an older age). The
 * result moves to just below its correction; nothing else moves. A correction the legs did not
 * rank (a page the AND query alone filled, a semantic leg that missed it) still matches when it
 * holds one of the query's words under the search's filters: it then comes in just above the
 * result it corrects.
 */
import { words } from '../../domain/text.js';
import type { StoredObject, TrustLevel } from '../../domain/model.js';
import { trustAtLeast } from '../../domain/trust.js';
import type { Ranked } from './candidates.js';

/** How many times a page is ranked again for its corrections: corrections that name each other in a cycle never settle. */
export const CORRECTION_ROUNDS = 8;

const justBelow = (final: number) => final - Math.max(Math.abs(final) * 1e-9, 1e-12);
const justAbove = (final: number) => final + Math.max(Math.abs(final) * 1e-9, 1e-12);

/** The page's order: final score, then id (descending) for equal scores. */
const ranksBefore = (a: Ranked, b: Ranked): boolean => a.final > b.final || (a.final === b.final && a.c.facts.id > b.c.facts.id);

type PageEntry = { c: Ranked['c']; object: StoredObject };

export class CorrectionsFirst {
  readonly #byId: Map<string, Ranked>;
  /** Corrections brought in unranked: placed by the result they correct, not by a score of their own. */
  readonly #placed = new Set<Ranked>();

  constructor(
    private readonly ranked: Ranked[],
    private readonly query: { terms: readonly string[]; types?: readonly string[] | undefined; topics?: readonly string[] | undefined; minTrust?: TrustLevel | undefined },
  ) {
    this.#byId = new Map(ranked.map((r) => [r.c.facts.id, r]));
  }

  /** Ids of corrections named on the page that no leg ranked: to be read, and offered to `admit`. */
  unranked(page: readonly PageEntry[]): string[] {
    return [...new Set(page.flatMap((p) => p.object.corrections.map((k) => k.id)))].filter((id) => !this.#byId.has(id));
  }

  /** Ranks a live correction the legs missed when it holds a query word under the filters (it joins `ranked`). */
  admit(o: StoredObject): void {
    if (this.#byId.has(o.id) || !this.#matches(o)) return;
    const r: Ranked = { c: { facts: { id: o.id, createdAt: o.createdAt, verificationCount: o.verificationCount, contradictionCount: o.contradictionCount } }, final: -Infinity };
    this.ranked.push(r);
    this.#byId.set(o.id, r);
    this.#placed.add(r);
  }

  /**
   * Puts each correction named for a page entry, and ranked, before it: the entry moves to just
   * below a ranked correction, and a correction brought in moves to just above the entry.
   * Answers whether anything moved (the page must then be taken again).
   */
  apply(page: readonly PageEntry[]): boolean {
    let moved = false;
    for (const { c, object } of page) {
      const entry = this.#byId.get(c.facts.id)!;
      for (const k of object.corrections) {
        const correction = this.#byId.get(k.id);
        if (!correction || correction === entry || ranksBefore(correction, entry)) continue;
        if (this.#placed.has(correction)) correction.final = justAbove(entry.final);
        else entry.final = justBelow(correction.final);
        moved = true;
      }
    }
    return moved;
  }

  #matches(o: StoredObject): boolean {
    const { terms, types, topics } = this.query;
    if (types?.length && !types.includes(o.type)) return false;
    if (topics?.length && !o.topics.some((t) => topics.includes(t))) return false;
    if (!trustAtLeast(o.author, this.query.minTrust)) return false;
    const held = new Set(words(`${o.title} ${o.content} ${o.topics.join(' ')}`));
    return terms.some((t) => held.has(t));
  }
}
