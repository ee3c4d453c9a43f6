/**
 * The Kv port: small shared state with expiry — rate-limit counters, caches, short locks.
 * In-process by default; Redis when several processes share the board.
 */
export interface WindowCount {
  count: number;
  /** Epoch ms when the window ends. */
  resetAt: number;
}

/** What a claim answers: whether it was the first, and from when the store remembers claims. */
export interface Claim {
  /** No claim of this key is remembered: this one is the first. */
  fresh: boolean;
  /**
   * The instant (the callers' clock) from which the store remembers every claim made of it: a
   * store that restarted empty began remembering again then. A claim made before it may be forgotten.
   */
  since: number;
}

export interface Kv {
  /** Adds one to the counter of `key` in the fixed window of `windowMs` containing `now`. */
  hit(key: string, windowMs: number, now: number): Promise<WindowCount>;
  get(key: string, now: number): Promise<string | null>;
  set(key: string, value: string, ttlMs: number, now: number): Promise<void>;
  /**
   * Takes the lock `key` for `owner` for `ttlMs`, or renews it when `owner` already holds it.
   * False when another owner holds it. Locks expire, so a crashed holder frees them.
   */
  lock(key: string, owner: string, ttlMs: number, now: number): Promise<boolean>;
  /**
   * Claims `key` for `ttlMs`, atomically across every process sharing the store: fresh only for
   * the first claim. Answers also since when the store's memory of claims is whole.
   */
  claim(key: string, ttlMs: number, now: number): Promise<Claim>;
  /** Releases the lock if `owner` still holds it. */
  unlock(key: string, owner: string): Promise<void>;
  /** Resolves once the store is connected; rejects when it cannot be reached in a few seconds. */
  ready(): Promise<void>;
  /** Resolves when the store answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
