/**
 * Monotonic ULIDs (https://github.com/ulid/spec): 48-bit millisecond time + 80 random bits,
 * Crockford base32. Within one millisecond (or if the clock steps back) the random part is
 * incremented, so ids made by one generator always sort in creation order.
 */
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_BITS = 80n;
const RANDOM_MAX = (1n << RANDOM_BITS) - 1n;

function encode(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

export const ULID_PATTERN = /^[0-9A-Za-z]{26}$/;

/** Structurally the Ids port: the domain names no port, the composition root passes it as one. */
export class UlidGenerator {
  #lastTime = -1;
  #lastRandom = 0n;

  constructor(
    private readonly clock: { now(): number },
    private readonly random: (bytes: number) => Buffer = randomBytes,
  ) {}

  next(): string {
    let time = this.clock.now();
    if (time <= this.#lastTime) {
      time = this.#lastTime;
      if (this.#lastRandom === RANDOM_MAX) {
        // Random space of this millisecond exhausted: borrow the next millisecond.
        time += 1;
        this.#lastRandom = this.#fresh();
      } else {
        this.#lastRandom += 1n;
      }
    } else {
      this.#lastRandom = this.#fresh();
    }
    this.#lastTime = time;
    return encode(BigInt(time), 10) + encode(this.#lastRandom, 16);
  }

  #fresh(): bigint {
    // Keep headroom so increments within a millisecond never overflow in practice.
    return BigInt('0x' + this.random(10).toString('hex')) >> 1n;
  }
}

/** A ULID for an object created at `ms` (imports keep their original creation order). */
export function ulidAt(ms: number, random: (bytes: number) => Buffer = randomBytes): string {
  return encode(BigInt(ms), 10) + encode(BigInt('0x' + random(10).toString('hex')), 16);
}

/** The millisecond timestamp encoded in a ULID. */
export function ulidTime(id: string): number {
  let t = 0;
  for (const ch of id.slice(0, 10).toUpperCase()) t = t * 32 + ALPHABET.indexOf(ch);
  return t;
}
