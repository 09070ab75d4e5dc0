/** When to look again: once a quarter of the lifetime the provider answered is left; never when it does not expire. */
export function renewAt(now: Date, expiresAt: Date | null): Date | null {
  if (!expiresAt) return null;
  return new Date(now.getTime() + Math.max(0, (expiresAt.getTime() - now.getTime()) * 0.75));
}

/** Failing for this long turns a subscription FAILED (it is still retried, hourly). */
export const FAILED_AFTER_MS = 24 * 60 * 60_000;
/** The retry policy: 1 min doubling to 1 h, counted from the failures so far. */
export const retryDelayMs = (failuresBefore: number) => Math.min(60_000 * 2 ** Math.min(failuresBefore, 16), 60 * 60_000);
