import pino from "pino";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { periodicPass } from "../src/periodicPass.ts";

/** The loop under the retention job and the vacuum job: when passes run, and how they stop. */
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

test("the first pass runs after the first delay, each next one an interval after the last ended; a failure is logged and retried", async () => {
  const warnings: string[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => warnings.push(JSON.parse(line).msg) });
  let runs = 0;
  const passes = periodicPass(
    async () => {
      runs++;
      if (runs === 2) throw new Error("database busy");
    },
    { intervalMs: 60_000, firstDelayMs: 1_000, logger, failure: "pass failed; the next one retries" },
  );
  passes.start();
  passes.start(); // a second start schedules nothing more
  await vi.advanceTimersByTimeAsync(999);
  expect(runs).toBe(0);
  await vi.advanceTimersByTimeAsync(1);
  expect(runs).toBe(1);
  await vi.advanceTimersByTimeAsync(60_000);
  expect(runs).toBe(2);
  expect(warnings).toEqual(["pass failed; the next one retries"]);
  await vi.advanceTimersByTimeAsync(60_000);
  expect(runs).toBe(3);
  await passes.stop();
  await vi.advanceTimersByTimeAsync(600_000);
  expect(runs).toBe(3);
});

test("stop waits for the pass in progress (which it tells to end soon), and none starts after it", async () => {
  let finish!: () => void;
  let runs = 0;
  const passes = periodicPass(
    () => {
      runs++;
      return new Promise<void>((resolve) => (finish = resolve));
    },
    { intervalMs: 10_000, logger: pino({ level: "silent" }), failure: "failed" },
  );
  passes.start();
  await vi.advanceTimersByTimeAsync(10_000);
  expect(runs).toBe(1);
  expect(passes.stopping()).toBe(false);
  let stopped = false;
  const stopping = passes.stop().then(() => (stopped = true));
  await vi.advanceTimersByTimeAsync(0);
  expect(stopped).toBe(false);
  expect(passes.stopping()).toBe(true);
  finish();
  await stopping;
  expect(stopped).toBe(true);
  await vi.advanceTimersByTimeAsync(100_000);
  expect(runs).toBe(1);
});

test("a failure the outage tracker notes (the database unreachable) is left to it: the pass logs nothing of its own", async () => {
  const warnings: string[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => warnings.push(JSON.parse(line).msg) });
  const noted: unknown[] = [];
  const unreachable = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
  let fail: Error = unreachable;
  const passes = periodicPass(
    async () => {
      throw fail;
    },
    {
      intervalMs: 1_000,
      logger,
      failure: "pass failed",
      outage: {
        noted(error) {
          noted.push(error);
          return error === unreachable;
        },
      },
    },
  );
  passes.start();
  await vi.advanceTimersByTimeAsync(1_000);
  expect(noted).toEqual([unreachable]);
  expect(warnings).toEqual([]);
  // Any other failure is the pass's to report.
  fail = new Error("deadlock detected");
  await vi.advanceTimersByTimeAsync(1_000);
  expect(warnings).toEqual(["pass failed"]);
  await passes.stop();
});
