import type { Clock } from '../../src/shared/clock.ts';

/** A clock a test sets and moves on by hand. */
export interface FakeClock extends Clock {
  set(at: number): void;
  advance(ms: number): void;
}

export function fakeClock(at = Date.now()): FakeClock {
  let current = at;
  return {
    now: () => current,
    set: (next) => void (current = next),
    advance: (ms) => void (current += ms),
  };
}
