/** The two clocks: the system's, and one that tests move by hand. */
import type { Clock } from './ports/clock.js';

export const systemClock: Clock = { now: () => Date.now() };

export class ManualClock implements Clock {
  constructor(private ms: number = Date.parse('2026-01-01T00:00:00.000Z')) {}
  now(): number {
    return this.ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}
