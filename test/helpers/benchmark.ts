import { expect } from "vitest";
import { spawnNode } from "./childProcess.ts";
import { requireBuild } from "./serviceProcess.ts";

/**
 * Runs one of bench/'s scripts as a user of the repository runs it (`npx tsx bench/<script>`), on
 * `serverUrl`'s PostgreSQL server (BENCH_DATABASE_URL: each benchmark makes and drops a database of
 * its own there), against the built service. Fails the test with the benchmark's output when it did
 * not exit 0 within `timeoutMs`; stops it either way.
 */
export async function runBenchmark(script: string, args: string[], options: { serverUrl: string; timeoutMs: number }): Promise<void> {
  requireBuild();
  const bench = spawnNode(["--import", "tsx", script, ...args], {
    cwd: new URL("../..", import.meta.url).pathname,
    env: { ...process.env, BENCH_DATABASE_URL: options.serverUrl },
  });
  try {
    const exit = await Promise.race([
      bench.exited,
      new Promise<string>((resolve) => setTimeout(() => resolve("still running"), options.timeoutMs).unref()),
    ]);
    expect(exit, `${script}'s output:\n${bench.output().slice(-4000)}`).toBe(0);
  } finally {
    await bench.stop();
  }
}
