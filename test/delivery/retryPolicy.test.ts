import { describe, expect, test } from "vitest";
import { nextStep, parseRetryAfter, RETRY_AFTER_MAX_MS } from "../../src/delivery/retryPolicy.ts";

const defaults = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
const noJitter = () => 0.5;

describe("the retry policy", () => {
  test("the default schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the first try — about 27 h", () => {
    const delays = defaults.map((_, i) => nextStep(i + 1, { statusCode: 500 }, defaults, noJitter));
    expect(delays).toEqual(defaults.map((delayMs) => ({ status: "PENDING", delayMs })));
    expect(nextStep(8, { statusCode: 500 }, defaults, noJitter)).toMatchObject({ status: "FAILED" });
    expect(defaults.reduce((a, b) => a + b, 0) / 3_600_000).toBeCloseTo(27.5, 0);
  });

  test("jitter stays within ±10 %", () => {
    expect(nextStep(2, { statusCode: 500 }, defaults, () => 0)).toEqual({ status: "PENDING", delayMs: 270_000 });
    expect(nextStep(2, { statusCode: 500 }, defaults, () => 0.999999)).toMatchObject({ status: "PENDING" });
    const high = nextStep(2, { statusCode: 500 }, defaults, () => 0.999999);
    expect(high.status === "PENDING" && high.delayMs).toBeLessThanOrEqual(330_000);
  });

  test.each([
    [{ statusCode: 200 }, "SUCCEEDED"],
    [{ statusCode: 204 }, "SUCCEEDED"],
    [{ statusCode: 299 }, "SUCCEEDED"],
    [{ statusCode: 410 }, "FAILED"],
    [{ statusCode: 301 }, "PENDING"],
    [{ statusCode: 302 }, "PENDING"],
    [{ statusCode: 400 }, "PENDING"],
    [{ statusCode: 404 }, "PENDING"],
    [{ statusCode: 429 }, "PENDING"],
    [{ statusCode: 500 }, "PENDING"],
    [{ error: "no answer within 15000 ms" }, "PENDING"],
  ] as const)("%j on the first try ⇒ %s", (outcome, status) => {
    expect(nextStep(1, outcome, defaults, noJitter).status).toBe(status);
  });

  test("a 2xx succeeds even after the schedule is used up; 410 fails even on the first try", () => {
    expect(nextStep(99, { statusCode: 200 }, [100, 200], noJitter)).toEqual({ status: "SUCCEEDED" });
    expect(nextStep(1, { statusCode: 410 }, [100, 200], noJitter)).toMatchObject({ status: "FAILED" });
    expect(nextStep(3, { error: "ECONNREFUSED" }, [100, 200], noJitter)).toMatchObject({ status: "FAILED" });
  });
});

describe("Retry-After on 429 and 503", () => {
  const now = new Date("2026-03-01T12:00:00.000Z");

  test("read as delay-seconds or an HTTP date (one in the past is 0); anything else is ignored", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Sun, 01 Mar 2026 12:02:00 GMT", now)).toBe(120_000);
    expect(parseRetryAfter("Sun, 01 Mar 2026 11:00:00 GMT", now)).toBe(0);
    for (const value of [null, undefined, "", "-5", "1.5", "soon", "2026-03-01"]) expect(parseRetryAfter(value, now)).toBeUndefined();
  });

  test("waits what was asked when longer than the step, never longer than an hour, never shorter than the step", () => {
    const schedule = [5_000, 7_200_000];
    expect(nextStep(1, { statusCode: 429, retryAfterMs: 60_000 }, schedule, noJitter)).toEqual({ status: "PENDING", delayMs: 60_000 });
    expect(nextStep(1, { statusCode: 503, retryAfterMs: 2 * RETRY_AFTER_MAX_MS }, schedule, noJitter)).toEqual({ status: "PENDING", delayMs: RETRY_AFTER_MAX_MS });
    expect(nextStep(1, { statusCode: 429, retryAfterMs: 1_000 }, schedule, noJitter)).toEqual({ status: "PENDING", delayMs: 5_000 });
    // A step longer than the hour stays the step.
    expect(nextStep(2, { statusCode: 429, retryAfterMs: 60_000 }, schedule, noJitter)).toEqual({ status: "PENDING", delayMs: 7_200_000 });
  });

  test("only 429 and 503, and never beyond the schedule", () => {
    expect(nextStep(1, { statusCode: 500, retryAfterMs: 60_000 }, [5_000], noJitter)).toEqual({ status: "PENDING", delayMs: 5_000 });
    expect(nextStep(2, { statusCode: 429, retryAfterMs: 60_000 }, [5_000], noJitter)).toMatchObject({ status: "FAILED" });
  });
});
