/** In-process Kv: a Map with expiry. One process only; use Redis to share limits across processes. */
import { fixedWindow } from '../domain/rate-window.js';
import type { Claim, Kv, WindowCount } from '../ports/kv.js';

interface Entry {
  value: string;
  expiresAt: number;
}

export class MemoryKv implements Kv {
  readonly #entries = new Map<string, Entry>();
  #closed = false;
  #lastSweep = 0;
  readonly #since: number;

  /** `since`: when this process's memory began (it ends with the process); 0 where nothing was forgotten before it. */
  constructor(options: { since?: number } = {}) {
    this.#since = options.since ?? 0;
  }

  async hit(key: string, windowMs: number, now: number): Promise<WindowCount> {
    this.#check();
    const { counterKey: k, resetAt } = fixedWindow(key, windowMs, now);
    const entry = this.#live(k, now);
    const count = entry ? Number(entry.value) + 1 : 1;
    this.#entries.set(k, { value: String(count), expiresAt: resetAt });
    this.#sweep(now);
    return { count, resetAt };
  }

  async get(key: string, now: number): Promise<string | null> {
    this.#check();
    return this.#live(key, now)?.value ?? null;
  }

  async set(key: string, value: string, ttlMs: number, now: number): Promise<void> {
    this.#check();
    this.#entries.set(key, { value, expiresAt: now + ttlMs });
    this.#sweep(now);
  }

  async lock(key: string, owner: string, ttlMs: number, now: number): Promise<boolean> {
    this.#check();
    const held = this.#live(key, now);
    if (held && held.value !== owner) return false;
    this.#entries.set(key, { value: owner, expiresAt: now + ttlMs });
    this.#sweep(now);
    return true;
  }

  async claim(key: string, ttlMs: number, now: number): Promise<Claim> {
    this.#check();
    const fresh = !this.#live(key, now);
    if (fresh) this.#entries.set(key, { value: '1', expiresAt: now + ttlMs });
    this.#sweep(now);
    return { fresh, since: this.#since };
  }

  async unlock(key: string, owner: string): Promise<void> {
    this.#check();
    if (this.#entries.get(key)?.value === owner) this.#entries.delete(key);
  }

  async ready(): Promise<void> {
    this.#check();
  }

  async ping(): Promise<void> {
    this.#check();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#entries.clear();
  }

  #check(): void {
    if (this.#closed) throw new Error('kv store is closed');
  }

  #live(key: string, now: number): Entry | undefined {
    const e = this.#entries.get(key);
    if (e && e.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return e;
  }

  /** Drops expired entries at most once a minute (on any write) so memory stays bounded by live entries. */
  #sweep(now: number): void {
    if (now - this.#lastSweep < 60_000) return;
    this.#lastSweep = now;
    for (const [k, e] of this.#entries) if (e.expiresAt <= now) this.#entries.delete(k);
  }
}
