import type { Clock } from "../../src/clock.ts";

/** A clock that stands still until a test moves it. */
export interface FakeClock extends Clock {
  advance(milliseconds: number): void;
  set(time: Date): void;
}

export function fakeClock(start = new Date("2026-01-01T00:00:00.000Z")): FakeClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (milliseconds) => {
      current += milliseconds;
    },
    set: (time) => {
      current = time.getTime();
    },
  };
}
