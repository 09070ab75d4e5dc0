/**
 * What happens after one delivery attempt — the whole retry policy, as one pure function.
 *
 * - Any 2xx ⇒ SUCCEEDED.
 * - 410 Gone ⇒ FAILED at once: the receiver says the endpoint is gone for good.
 * - Anything else (another status, a redirect — they are not followed —, a timeout, a refused
 *   connection, a blocked address) ⇒ retry after `schedule[attempt - 1]`, ±10 % jitter so a
 *   receiver coming back up is not hit by every delayed event at the same instant.
 * - When the schedule is used up ⇒ FAILED.
 *
 * With the default schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h — Svix's and the Standard
 * Webhooks recommendation) that is 8 attempts over about 27 hours. `attempt` is 1-based: the
 * attempt that just finished.
 */
export type AttemptOutcome = { statusCode: number } | { error: string };

export type RetryDecision =
  | { status: "SUCCEEDED" }
  | { status: "PENDING"; delayMs: number }
  | { status: "FAILED"; reason: string };

export const JITTER = 0.1;

export function nextStep(attempt: number, outcome: AttemptOutcome, scheduleMs: readonly number[], random: () => number = Math.random): RetryDecision {
  if ("statusCode" in outcome) {
    if (outcome.statusCode >= 200 && outcome.statusCode < 300) return { status: "SUCCEEDED" };
    if (outcome.statusCode === 410) return { status: "FAILED", reason: "the receiver answered 410 Gone" };
  }
  if (attempt > scheduleMs.length) return { status: "FAILED", reason: `gave up after ${attempt} attempts` };
  const base = scheduleMs[attempt - 1];
  const jitter = 1 + JITTER * (2 * random() - 1);
  return { status: "PENDING", delayMs: Math.max(0, Math.round(base * jitter)) };
}
