import { describe, expect, test } from "vitest";
import { nextStep } from "../../src/delivery/retryPolicy.ts";

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
