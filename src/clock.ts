/**
 * Time as a dependency: code that decides by the clock (retries, disabling, expiry, retention,
 * renewals) takes a Clock, so tests move time instead of waiting for it (test/helpers/clock.ts).
 * SQL that compares with the time is given `clock.now()` as a parameter rather than calling now().
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
