import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { spawnNode } from "./childProcess.ts";
import { requireBuild } from "./serviceProcess.ts";

/**
 * Runs one of bench/'s scripts as a user of the repository runs it (`npx tsx bench/<script>`), on
 * `serverUrl`'s PostgreSQL server when given (BENCH_DATABASE_URL: each benchmark makes and drops a
 * database of its own there), against the built service, and returns the report it wrote (`--out`, a file of
 * its own). Fails the test with the benchmark's output when it did not exit 0 within `timeoutMs`;
 * stops it either way.
 */
export async function runBenchmark<Report>(script: string, args: string[], options: { serverUrl?: string; timeoutMs: number }): Promise<Report> {
  requireBuild();
  const folder = mkdtempSync(join(tmpdir(), "sy-bench-"));
  const out = join(folder, "report.json");
  const bench = spawnNode(["--import", "tsx", script, ...args, "--out", out], {
    cwd: new URL("../..", import.meta.url).pathname,
    env: { ...process.env, ...(options.serverUrl ? { BENCH_DATABASE_URL: options.serverUrl } : {}) },
  });
  try {
    const exit = await Promise.race([
      bench.exited,
      new Promise<string>((resolve) => setTimeout(() => resolve("still running"), options.timeoutMs).unref()),
    ]);
    expect(exit, `${script}'s output:\n${bench.output().slice(-4000)}`).toBe(0);
    return JSON.parse(readFileSync(out, "utf8")) as Report;
  } finally {
    await bench.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}
