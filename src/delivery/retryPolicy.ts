/**
 * What happens after one delivery attempt — the whole retry policy, as one pure function.
 *
 * - Any 2xx ⇒ SUCCEEDED.
 * - 410 Gone ⇒ FAILED at once: the receiver says the endpoint is gone for good.
 * - Anything else (another status, a redirect — they are not followed —, a timeout, a refused
 *   connection, a blocked address) ⇒ retry after `schedule[attempt - 1]`, ±10 % jitter so a
 *   receiver coming back up is not hit by every delayed event at the same instant.
 * - When the schedule is used up ⇒ FAILED.
 * - A 429 or 503 with `Retry-After` (seconds or an HTTP date, RFC 9110 §10.2.3) longer than the
 *   step ⇒ the next attempt waits what the receiver asked, at most RETRY_AFTER_MAX_MS (1 h); a
 *   shorter one changes nothing (never sooner than the schedule). It never adds attempts: a
 *   delivery still fails when the schedule is used up.
 *
 * With the default schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h — Svix's and the Standard
 * Webhooks recommendation) that is 8 attempts over about 27 hours. `attempt` is 1-based: the
 * attempt that just finished.
 */
export type AttemptOutcome = { statusCode: number; retryAfterMs?: number | null } | { error: string };

export type RetryDecision =
  | { status: "SUCCEEDED" }
  | { status: "PENDING"; delayMs: number }
  | { status: "FAILED"; reason: string };

export const JITTER = 0.1;

/** The longest a receiver's Retry-After may hold a delivery back. */
export const RETRY_AFTER_MAX_MS = 60 * 60 * 1000;

/**
 * A Retry-After value in milliseconds from `now`: delay-seconds or an HTTP date (one in the past is
 * 0). Undefined when it is neither (then the schedule alone decides).
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Math.min(Number(text), 2 ** 31 - 1) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, at - now.getTime());
}

export function nextStep(attempt: number, outcome: AttemptOutcome, scheduleMs: readonly number[], random: () => number = Math.random): RetryDecision {
  if ("statusCode" in outcome) {
    if (outcome.statusCode >= 200 && outcome.statusCode < 300) return { status: "SUCCEEDED" };
    if (outcome.statusCode === 410) return { status: "FAILED", reason: "the receiver answered 410 Gone" };
  }
  if (attempt > scheduleMs.length) return { status: "FAILED", reason: `gave up after ${attempt} attempts` };
  const base = scheduleMs[attempt - 1];
  const jitter = 1 + JITTER * (2 * random() - 1);
  const step = Math.max(0, Math.round(base * jitter));
  const asked = "statusCode" in outcome && (outcome.statusCode === 429 || outcome.statusCode === 503) ? outcome.retryAfterMs : undefined;
  return { status: "PENDING", delayMs: asked ? Math.max(step, Math.min(asked, RETRY_AFTER_MAX_MS)) : step };
}
