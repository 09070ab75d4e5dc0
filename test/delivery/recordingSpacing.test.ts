import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { createAttemptRecorder, RECORDING_SPACING_MS } from "../../src/delivery/queue/recordAttempts.ts";
import { createLogger } from "../../src/log.ts";
import { fakeClock } from "../helpers/clock.ts";
import { succeededAttempt } from "../helpers/queue.ts";
import { statementRecorder } from "../helpers/statementRecorder.ts";

/**
 * The attempt recorder starts a statement no sooner than RECORDING_SPACING_MS after the last one
 * began, so that attempts finishing meanwhile share one transaction; idle, it records at once. The
 * pacing reads performance.now() and waits with setTimeout, both moved here by fake timers.
 */
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
});
afterEach(() => {
  vi.useRealTimers();
});

test("attempts that finish within the spacing after a statement began are recorded together, once it has passed", async () => {
  const { recorder, sent } = statementRecorder();
  const record = createAttemptRecorder(recorder, createLogger("silent"), fakeClock(), 60_000);
  const batches = () => sent.map((statement) => (JSON.parse(statement.params[0] as string) as Array<{ id: string }>).map((row) => row.id));

  // Idle: recorded at once, no wait.
  await record(succeededAttempt("dlv_1"));
  expect(batches()).toEqual([["dlv_1"]]);

  const second = record(succeededAttempt("dlv_3"));
  const third = record(succeededAttempt("dlv_2"));
  await vi.advanceTimersByTimeAsync(RECORDING_SPACING_MS - 1);
  expect(batches()).toEqual([["dlv_1"]]);

  await vi.advanceTimersByTimeAsync(1);
  await Promise.all([second, third]);
  // One statement for both, its rows in id order (two statements lock shared rows in one order).
  expect(batches()).toEqual([["dlv_1"], ["dlv_2", "dlv_3"]]);

  // Long after the last statement began: at once again.
  await vi.advanceTimersByTimeAsync(10 * RECORDING_SPACING_MS);
  await record(succeededAttempt("dlv_4"));
  expect(batches()).toEqual([["dlv_1"], ["dlv_2", "dlv_3"], ["dlv_4"]]);
});
