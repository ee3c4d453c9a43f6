import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { ULID_PATTERN, UlidGenerator, ulidAt, ulidTime } from './ulid.js';

/** The spec's encoding, in BigInt arithmetic: Crockford base32 of the 48-bit time, then of the 80-bit random part. */
const crockford = (value: bigint, length: number): string => {
  let out = '';
  for (let i = 0; i < length; i++, value >>= 5n) out = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'[Number(value & 31n)] + out;
  return out;
};
const bytesValue = (b: Uint8Array): bigint => BigInt(`0x${Buffer.from(b).toString('hex')}`);
/** Bytes from a seeded generator, so that a failure can be replayed. */
const seeded = (seed: number) => (n: number) => Uint8Array.from({ length: n }, () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff);

describe('UlidGenerator', () => {
  it('makes 26-character ids that sort in creation order within one millisecond', () => {
    const gen = new UlidGenerator(new ManualClock(1_700_000_000_000));
    const ids = Array.from({ length: 1000 }, () => gen.next());
    expect(ids.every((id) => ULID_PATTERN.test(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
  it('stays monotonic when the clock steps back', () => {
    const clock = new ManualClock(1_700_000_000_500);
    const gen = new UlidGenerator(clock);
    const a = gen.next();
    clock.set(1_700_000_000_000);
    const b = gen.next();
    expect(b > a).toBe(true);
  });
  it('encodes the time', () => {
    const gen = new UlidGenerator(new ManualClock(1_700_000_123_456));
    expect(ulidTime(gen.next())).toBe(1_700_000_123_456);
  });
  it('encodes as the spec does: the time, then the random part drawn (shifted once for headroom), then one more for each id of the same millisecond', () => {
    const random = seeded(1);
    for (let i = 0; i < 200; i++) {
      const bytes = random(10);
      const ms = 1_700_000_000_000 + i * 123_456_789;
      const gen = new UlidGenerator(new ManualClock(ms), () => bytes);
      const start = bytesValue(bytes) >> 1n;
      const time = crockford(BigInt(ms), 10);
      expect([gen.next(), gen.next()]).toEqual([time + crockford(start, 16), time + crockford(start + 1n, 16)]);
    }
  });
  it('carries an increment from the low 40 random bits into the high ones', () => {
    // 0x01, then nine 0xff: shifted once, the low 40 bits are all ones and the high ones end in 1.
    const bytes = Uint8Array.from([0x01, ...Array<number>(9).fill(0xff)]);
    const gen = new UlidGenerator(new ManualClock(1_700_000_000_000), () => bytes);
    const start = bytesValue(bytes) >> 1n;
    const ids = [gen.next(), gen.next(), gen.next()];
    expect(ids.map((id) => id.slice(10))).toEqual([start, start + 1n, start + 2n].map((v) => crockford(v, 16)));
    expect([...ids].sort()).toEqual(ids);
  });
  it('makes an id for a given instant from the random part as drawn', () => {
    const random = seeded(7);
    for (let i = 0; i < 100; i++) {
      const bytes = random(10);
      const ms = 1_600_000_000_000 + i * 987_654_321;
      expect(ulidAt(ms, () => bytes)).toBe(crockford(BigInt(ms), 10) + crockford(bytesValue(bytes), 16));
      expect(ulidTime(ulidAt(ms))).toBe(ms);
    }
  });
});
