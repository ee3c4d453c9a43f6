/**
 * Whether anything the board shows may have changed, for the read cache (Store.changeMark).
 * This process's writes are counted as they complete. Other instances' arrive as NOTIFY on one
 * channel, which every write they must hear of sends: event appends (publish, reply, vote,
 * withdraw, hide), imports and re-derived standing. While the listening connection is down
 * nothing can be vouched for, and the mark is null: nothing is served from the cache.
 */
import type { Closing, PgResult, PgRoot, PgSession, PgStatements, Plans } from './pg-session.js';

export const CHANGES_CHANNEL = 'agentboard_events';
/** A SELECT expression that tells every instance, on commit, that data changed. */
export const NOTIFY_CHANGED = `pg_notify('${CHANGES_CHANNEL}', '')`;

/**
 * Statements that may write; a false positive only costs cache entries. Data is never inlined
 * in SQL. A row lock (`FOR UPDATE`, `FOR NO KEY UPDATE`) writes nothing: the embed queue's
 * poll takes one, and counting it would empty the cache every poll.
 */
const WRITES = /\b(INSERT|(?<!\bFOR\s+(NO\s+KEY\s+)?)UPDATE|DELETE|TRUNCATE|MERGE|CREATE|ALTER|DROP|COPY)\b/i;
const RELISTEN_MS = 1000;

/**
 * Whether a statement may write (WRITES), kept by its text: the board's texts are few, and each
 * comes as the same string (pg-rows.ts compiles it once), whose hash is kept with it. Tested at
 * every run, the pattern would read each search's long statement through each time.
 */
const KNOWN_MAX = 1000;
const known = new Map<string, boolean>();

export function mayWrite(text: string): boolean {
  let writes = known.get(text);
  if (writes === undefined) {
    writes = WRITES.test(text);
    if (known.size < KNOWN_MAX) known.set(text, writes);
  }
  return writes;
}

export class PgChanges {
  #count = 0;
  #listening = false;
  #listener: Promise<{ stop(): Promise<void> }> | null = null;
  #closed = false;

  /** How many writes this process has made or heard of: moves as the mark does, but never null. */
  get writes(): number {
    return this.#count;
  }

  /** Moves the mark for a change this process's copies took in after the write was heard of (vectors held in memory). */
  changed(): void {
    this.#count++;
  }

  /** `root`, with every write through it counted once it completes (a transaction's when it ends). */
  counting(root: PgRoot): PgRoot {
    const bump = () => void this.#count++;
    const countedQuery =
      (s: PgStatements) =>
      <R>(text: string, params?: readonly unknown[]) =>
        afterWrite(text, () => s.query<R>(text, params), bump);
    const counted = (s: PgSession): PgSession => ({
      query: countedQuery(s),
      exec: (script: string) => afterWrite(script, () => s.exec(script), bump),
      transaction: async <T>(fn: (tx: PgSession) => Promise<T>, closing?: Closing) => {
        let wrote = false;
        const flag = () => (wrote = true);
        try {
          return await s.transaction((tx) => fn(flagging(tx, flag)), flaggingClosing(closing, flag));
        } finally {
          if (wrote) bump();
        }
      },
    });
    let generic: PgSession | undefined;
    let pipeline: PgStatements | undefined;
    const pipelines = new Map<Plans, PgStatements>();
    return {
      ...counted(root),
      genericPlans: () => (generic ??= counted(root.genericPlans())),
      pipeline: () => (pipeline ??= { query: countedQuery(root.pipeline()) }),
      pipelines: (plans) => pipelines.get(plans) ?? pipelines.set(plans, { query: countedQuery(root.pipelines(plans)) }).get(plans)!,
      listen: (channel, onPayload, onLost) => root.listen(channel, onPayload, onLost),
      close: async () => {
        this.#closed = true;
        await (await this.#listener)?.stop();
        await root.close();
      },
    };
  }

  /** Moves with every write this process or (once heard) another instance makes; null while deaf. The first call waits for the listener. */
  async mark(root: PgRoot): Promise<number | null> {
    if (this.#closed) return null;
    this.#listener ??= listenToChanges(root, {
      onPayload: () => void this.#count++,
      onListening: (listening) => {
        // What others wrote while this process was not listening is unknown: a new mark either way.
        this.#count++;
        this.#listening = listening;
      },
    });
    await this.#listener;
    return this.#listening ? this.#count : null;
  }
}

/**
 * Listens on the changes channel for as long as it is not stopped: a lost connection is
 * listened on again after RELISTEN_MS, and `onListening` hears each change of state.
 */
export async function listenToChanges(
  root: PgRoot,
  on: { onPayload: () => void; onListening?: (listening: boolean) => void },
): Promise<{ stop(): Promise<void> }> {
  let current: { stop(): Promise<void> } | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const again = () => {
    if (!stopped) retry = setTimeout(() => void start(), RELISTEN_MS);
  };
  const start = async (): Promise<void> => {
    try {
      current = await root.listen(CHANGES_CHANNEL, on.onPayload, () => {
        current = null;
        on.onListening?.(false);
        again();
      });
      if (stopped) return void (await current.stop());
      on.onListening?.(true);
    } catch {
      again();
    }
  };
  await start();
  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      await current?.stop();
    },
  };
}

async function afterWrite<T>(text: string, run: () => Promise<T>, wrote: () => void): Promise<T> {
  if (!mayWrite(text)) return run();
  try {
    return await run();
  } finally {
    wrote();
  }
}

/** A transaction's session that says when a statement may have written. */
function flagging(tx: PgSession, wrote: () => void): PgSession {
  const session: PgSession = {
    query: <R>(text: string, params?: readonly unknown[]): Promise<PgResult<R>> => {
      if (mayWrite(text)) wrote();
      return tx.query<R>(text, params);
    },
    exec: (script: string) => {
      if (mayWrite(script)) wrote();
      return tx.exec(script);
    },
    transaction: <T>(fn: (t: PgSession) => Promise<T>, closing?: Closing) => tx.transaction((inner) => fn(flagging(inner, wrote)), flaggingClosing(closing, wrote)),
  };
  return session;
}

/** `closing`, calling `wrote` when the statement it gives may write. */
function flaggingClosing(closing: Closing | undefined, wrote: () => void): Closing | undefined {
  return (
    closing &&
    (() => {
      const st = closing();
      if (st && mayWrite(st.text)) wrote();
      return st;
    })
  );
}
