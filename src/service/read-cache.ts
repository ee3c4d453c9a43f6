/**
 * A small in-process cache of read answers (the bytes of a JSON body) and of what reads are
 * made of (search legs' candidates, topic counts), exact by construction: an entry is served
 * only while
 *   - the store's change mark is the one read before the answer was computed (no write since,
 *     from this process or, as soon as the store hears of it, any other), and
 *   - the clock is before the first instant at which time alone could change the answer: an
 *     object shown reaching `expiring` or `expired` (domain/state.ts), or any live object
 *     leaving the live set (which moves listings, reply counts and topic counts).
 * Entries are evicted least recently used past `maxBytes`. With `maxBytes` 0 nothing is kept.
 */
import { hash } from 'node:crypto';
import { nextShownChange } from '../domain/state.js';
import type { StoredObject } from '../domain/model.js';
import type { Store } from '../ports/store.js';

export interface CachedAnswer {
  /** UTF-8, encoded once: each answer from the cache is written without encoding it again. */
  body: Uint8Array<ArrayBuffer>;
  /** A strong validator of `body`, quoted, for ETag / If-None-Match. */
  etag: string;
}

/** What a read computes: its body, and every object it shows (for their time boundaries). */
export interface ComputedAnswer {
  body: string;
  shown: readonly StoredObject[];
}

/** A value to keep: its room in bytes (roughly; null keeps nothing), and every object it shows. */
export interface ComputedValue<V> {
  value: V;
  size: number | null;
  shown?: readonly StoredObject[];
}

interface Entry {
  value: unknown;
  mark: number | string;
  validUntil: number;
  size: number;
}

/** An entry in the recency list: older toward `prev`, newer toward `next`. */
interface Node extends Entry {
  key: string;
  prev: Node;
  next: Node;
}

/** A node of one shape for entries and the list's sentinel alike, so that relinking stays monomorphic. */
function node(key: string, e: Entry): Node {
  const n = { value: e.value, mark: e.mark, validUntil: e.validUntil, size: e.size, key, prev: null, next: null } as unknown as Node;
  n.prev = n.next = n;
  return n;
}

export interface ReadCacheOptions {
  store: Pick<Store, 'changeMark' | 'objects'>;
  now: () => number;
  maxBytes: number;
  expiringFraction: number;
}

export const etagOf = (body: string | Uint8Array): string => `"${hash('sha1', body, 'base64url')}"`;

export class ReadCache {
  readonly #entries = new Map<string, Node>();
  /**
   * The entries, least recently used first (after this sentinel). A hit relinks its entry here
   * and leaves the Map alone: moving it to the end of the Map's own order (delete, set again)
   * cost twice as much per hit (docs/performance.md).
   */
  readonly #recency: Node = node('', { value: null, mark: '', validUntil: 0, size: 0 });
  #bytes = 0;
  /** The store-wide next expiry, as read (or being read) under `mark`. */
  #expiry: { mark: number | string; at: number | Promise<number> } | null = null;

  constructor(private readonly o: ReadCacheOptions) {}

  /**
   * The answer under `key`: from the cache while it is exact, else computed (and kept). An answer
   * that shows an object of a private space is never kept: an answer is served by its key alone,
   * to whoever asks. With `bypass` (a read of a space, answered for its own grant), the answer is
   * computed and neither looked up nor kept.
   */
  read(key: string, compute: () => Promise<ComputedAnswer>, opts: { bypass?: boolean } = {}): Promise<CachedAnswer> {
    const encoded = async (): Promise<ComputedValue<CachedAnswer>> => {
      const { body, shown } = await compute();
      const bytes = Buffer.from(body, 'utf8');
      return { value: { body: bytes, etag: etagOf(bytes) }, size: shown.some((o) => o.space !== null) ? null : bytes.byteLength, shown };
    };
    return opts.bypass ? encoded().then((a) => a.value) : this.value(key, encoded);
  }

  /**
   * The value under `key`: from the cache while it is exact, else computed (and kept unless its
   * size is null). Callers share a kept value, so none may change it.
   */
  async value<V>(key: string, compute: () => Promise<ComputedValue<V>>): Promise<V> {
    // many() for one key, without its list and maps: a cached GET is this and little else.
    const mark = await this.#mark();
    const now = this.o.now();
    const hit = this.#fresh(key, mark, now);
    if (hit) return hit.value as V;
    const computed = await compute();
    this.#keep([[key, computed]], mark, now);
    return computed.value;
  }

  /**
   * The values under `keys`: those still exact from the cache, and the others computed at once
   * (`compute` answers every key it is given; each is kept unless its size is null).
   */
  async many<V>(keys: readonly string[], compute: (missing: string[]) => Promise<Map<string, ComputedValue<V>>>): Promise<Map<string, V>> {
    const found = new Map<string, V>();
    const mark = await this.#mark();
    const now = this.o.now();
    const missing: string[] = [];
    for (const key of keys) {
      const hit = this.#fresh(key, mark, now);
      if (hit) found.set(key, hit.value as V);
      else missing.push(key);
    }
    if (missing.length === 0) return found;
    const computed = await compute(missing);
    this.#keep(computed, mark, now);
    for (const [key, { value }] of computed) found.set(key, value);
    return found;
  }

  /** The store's change mark, read before the answers (a write landing while they are computed leaves them stale-marked); null when nothing is kept. */
  #mark(): Promise<number | string | null> | null {
    return this.o.maxBytes > 0 ? this.o.store.changeMark() : null;
  }

  /** The entry under `key` if it is still exact (and now the most recently used), else undefined. */
  #fresh(key: string, mark: number | string | null, now: number): Entry | undefined {
    const hit = this.#entries.get(key);
    if (!hit || mark === null || hit.mark !== mark || now >= hit.validUntil) return undefined;
    this.#unlink(hit);
    this.#append(hit);
    return hit;
  }

  /**
   * Keeps what was computed under `mark` (unless its size is null), until it could first change.
   * Where the store-wide next expiry must be read first, the caller is answered meanwhile and
   * what it computed is kept once that read returns: a read costs no round trip for the cache.
   */
  #keep(computed: Iterable<[string, ComputedValue<unknown>]>, mark: number | string | null, now: number): void {
    if (mark === null) return;
    const expiry = this.#nextExpiry(mark, now);
    if (typeof expiry === 'number') return this.#keepUntil(computed, mark, now, expiry);
    void expiry.then(
      (at) => this.#keepUntil(computed, mark, now, at),
      // The store could not tell: nothing is kept, and the next read computes again.
      () => undefined,
    );
  }

  #keepUntil(computed: Iterable<[string, ComputedValue<unknown>]>, mark: number | string, now: number, expiry: number): void {
    for (const [key, { value, size, shown = [] }] of computed) {
      if (size === null) continue;
      let validUntil = expiry;
      for (const o of shown) validUntil = Math.min(validUntil, nextShownChange(o, now, this.o.expiringFraction));
      this.#store(key, { value, mark, validUntil, size });
    }
  }

  /**
   * The store-wide next expiry after `now` under `mark`: as known (a number), or being read (one
   * read at a time for a mark, shared by every answer computed under it).
   */
  #nextExpiry(mark: number | string, now: number): number | Promise<number> {
    const known = this.#expiry;
    // Without a write, nothing becomes live: the next expiry read earlier still holds until it passes.
    if (known && known.mark === mark && (typeof known.at !== 'number' || now < known.at)) return known.at;
    const reading = this.o.store.objects.nextExpiry(now).then((at) => at ?? Infinity);
    const entry: { mark: number | string; at: number | Promise<number> } = { mark, at: reading };
    this.#expiry = entry;
    reading.then(
      (at) => {
        if (this.#expiry === entry) entry.at = at;
      },
      () => {
        if (this.#expiry === entry) this.#expiry = null;
      },
    );
    return reading;
  }

  #store(key: string, entry: Entry): void {
    // One answer never takes more than an eighth of the room.
    if (entry.size > this.o.maxBytes / 8) return;
    this.#drop(key);
    const n = node(key, entry);
    this.#entries.set(key, n);
    this.#append(n);
    this.#bytes += entry.size;
    while (this.#bytes > this.o.maxBytes && this.#recency.next !== this.#recency) this.#drop(this.#recency.next.key);
  }

  #drop(key: string): void {
    const old = this.#entries.get(key);
    if (!old) return;
    this.#entries.delete(key);
    this.#unlink(old);
    this.#bytes -= old.size;
  }

  #unlink(n: Node): void {
    n.prev.next = n.next;
    n.next.prev = n.prev;
  }

  /** Makes `n` the most recently used. */
  #append(n: Node): void {
    n.prev = this.#recency.prev;
    n.next = this.#recency;
    this.#recency.prev.next = n;
    this.#recency.prev = n;
  }
}
