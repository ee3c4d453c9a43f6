/**
 * The live check of the semantic leg's nearest objects (nearestLive), answered from their facts
 * as read while the store's change mark stands. The mark moves with every write in any instance
 * or process (a vote, a hide, a withdrawal, an import), and the facts change only by writes, so
 * kept facts are the stored ones; time alone ends an object's life, and is compared at each
 * search. Searches of ever new words ask about the same nearest objects again, and reading them
 * each time was a large share of a hybrid search (docs/performance.md).
 */
import type { CandidateColumns } from './object-columns.js';

/** Facts kept at most (about 150 bytes each): past this many, the kept ones are dropped. */
const FACTS_KEPT = 100_000;

/** A nearest object's candidate columns, the instant it stops being live, and its space ('' for the commons). */
export interface SeqFacts {
  columns: CandidateColumns;
  liveUntil: number;
  space: string;
}

export class KeptFacts {
  #mark: unknown = undefined;
  /** Each seq's facts as read under #mark; null for a seq read as no object. */
  #bySeq = new Map<number, SeqFacts | null>();

  constructor(
    /** The facts of the objects among `seqs`, by seq, whatever their state (a seq without an object is missing). */
    private readonly read: (seqs: number[]) => Promise<Map<number, SeqFacts>> | Map<number, SeqFacts>,
    private readonly max = FACTS_KEPT,
  ) {}

  /** The columns of each of `seqs` that is live at `now` in `space` (null: the commons), in their order (undefined where not), with facts read under `mark`. */
  async liveAmong(mark: string | number, seqs: readonly number[], now: number, space: string | null | undefined): Promise<(CandidateColumns | undefined)[]> {
    if (this.#mark !== mark) {
      this.#mark = mark;
      this.#bySeq = new Map();
    }
    // This mark's facts, even if another mark replaces them while the statement runs.
    const kept = this.#bySeq;
    // Each seq's facts, looked up once: undefined where not kept yet (null: kept as no object).
    const facts = seqs.map((seq) => kept.get(seq));
    const missing = seqs.filter((_, i) => facts[i] === undefined);
    if (missing.length) {
      const read = await this.read(missing);
      if (kept.size + missing.length > this.max) kept.clear();
      for (const seq of missing) kept.set(seq, read.get(seq) ?? null);
      seqs.forEach((seq, i) => (facts[i] ??= read.get(seq) ?? null));
    }
    const scope = space ?? '';
    return facts.map((f) => (f && now < f.liveUntil && f.space === scope ? f.columns : undefined));
  }
}
