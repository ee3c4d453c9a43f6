/**
 * Which keys were asked for recently, roughly: one bit per hash of a key, forgotten all at once
 * when an eighth of the bits have been set (TinyLFU's doorkeeper). A key can be taken for seen
 * when another with the same hash was (at most one time in eight, just before the reset); it
 * is never taken for unseen after being seen, until the reset. The searcher keeps a search's
 * candidates only when their key was asked for before: on a board searched for ever new words,
 * a kept leg was never read again, and keeping one each search cost garbage collection time.
 */

/** Bits of the hash: 2^20 bits, 128 KiB. */
const HASH_BITS = 20;
/** Keys marked before everything is forgotten: an eighth of the bits. */
const KEYS_REMEMBERED = 2 ** (HASH_BITS - 3);

export class RecentKeys {
  readonly #bits = new Uint32Array(2 ** HASH_BITS / 32);
  #marked = 0;

  /** Whether `key` was asked for since the last reset; from now on it was. */
  seenBefore(key: string): boolean {
    const h = fnv1a(key) >>> (32 - HASH_BITS);
    const word = h >>> 5;
    const bit = 1 << (h & 31);
    if (this.#bits[word]! & bit) return true;
    if (this.#marked >= KEYS_REMEMBERED) {
      this.#bits.fill(0);
      this.#marked = 0;
    }
    this.#bits[word]! |= bit;
    this.#marked++;
    return false;
  }
}

/** FNV-1a over the UTF-16 code units: fast, and spread well enough for a filter. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
