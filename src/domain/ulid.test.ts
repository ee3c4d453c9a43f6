import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { ULID_PATTERN, UlidGenerator, ulidTime } from './ulid.js';

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
});
