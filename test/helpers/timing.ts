import { availableParallelism, loadavg } from "node:os";

/**
 * How much slower than a quiet machine this one is right now, for deadlines that depend on machine
 * speed (a child service compiling TypeScript, a fuzz request under load). `TEST_TIMEOUT_SCALE`
 * sets it; otherwise it follows the load: a 2-core machine at load 10 waits 5× as long. Never
 * below 1, never above 10 (a deadline still has to end a test that truly hangs).
 */
export const timeScale: number = (() => {
  const fromEnv = Number(process.env.TEST_TIMEOUT_SCALE);
  if (Number.isFinite(fromEnv) && fromEnv > 0) return fromEnv;
  return Math.min(10, Math.max(1, loadavg()[0] / availableParallelism()));
})();

/** A deadline of `ms` on a quiet machine, stretched by `timeScale`. */
export const scaled = (ms: number): number => Math.round(ms * timeScale);
