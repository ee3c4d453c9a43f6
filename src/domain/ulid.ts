/**
 * Monotonic ULIDs (https://github.com/ulid/spec): 48-bit millisecond time + 80 random bits,
 * Crockford base32. Within one millisecond (or if the clock steps back) the random part is
 * incremented, so ids made by one generator always sort in creation order.
 */
import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** The 80 random bits are two halves of 40 bits, each exact in a number: BigInt arithmetic was far slower. */
const HALF = 2 ** 40;

/** `value` (an integer below 2^53) as `length` base-32 digits, most significant first. */
function encode(value: number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[value % 32]! + out;
    value = Math.floor(value / 32);
  }
  return out;
}

/** The id of `time` and the random part `hi`·2^40 + `lo`. */
const ulidOf = (time: number, hi: number, lo: number): string => encode(time, 10) + encode(hi, 8) + encode(lo, 8);

/** Big-endian 40-bit halves of 10 random bytes. */
function halves(b: Uint8Array): [hi: number, lo: number] {
  const at = (i: number) => b[i]! * 2 ** 32 + ((b[i + 1]! << 24) >>> 0) + (b[i + 2]! << 16) + (b[i + 3]! << 8) + b[i + 4]!;
  return [at(0), at(5)];
}

/** Random bytes drawn from a pool refilled 4 KiB at a time: a call per id cost more than the id. */
const pool = Buffer.alloc(4096);
let drawn = pool.length;
function pooledRandom(bytes: number): Buffer {
  if (drawn + bytes > pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  drawn += bytes;
  return pool.subarray(drawn - bytes, drawn);
}

export const ULID_PATTERN = /^[0-9A-Za-z]{26}$/;

/** Structurally the Ids port: the domain names no port, the composition root passes it as one. */
export class UlidGenerator {
  #lastTime = -1;
  #hi = 0;
  #lo = 0;

  constructor(
    private readonly clock: { now(): number },
    private readonly random: (bytes: number) => Uint8Array = pooledRandom,
  ) {}

  next(): string {
    let time = this.clock.now();
    if (time <= this.#lastTime) {
      time = this.#lastTime;
      if (this.#lo < HALF - 1) {
        this.#lo++;
      } else if (this.#hi < HALF - 1) {
        this.#hi++;
        this.#lo = 0;
      } else {
        // Random space of this millisecond exhausted: borrow the next millisecond.
        time += 1;
        this.#fresh();
      }
    } else {
      this.#fresh();
    }
    this.#lastTime = time;
    return ulidOf(time, this.#hi, this.#lo);
  }

  /** 79 random bits (the 80 drawn, shifted right once): increments within a millisecond never overflow in practice. */
  #fresh(): void {
    const [hi, lo] = halves(this.random(10));
    this.#hi = Math.floor(hi / 2);
    this.#lo = (hi % 2) * (HALF / 2) + Math.floor(lo / 2);
  }
}

/** A ULID for an object created at `ms` (imports keep their original creation order). */
export function ulidAt(ms: number, random: (bytes: number) => Uint8Array = pooledRandom): string {
  return ulidOf(ms, ...halves(random(10)));
}

/** The millisecond timestamp encoded in a ULID. */
export function ulidTime(id: string): number {
  let t = 0;
  for (const ch of id.slice(0, 10).toUpperCase()) t = t * 32 + ALPHABET.indexOf(ch);
  return t;
}
