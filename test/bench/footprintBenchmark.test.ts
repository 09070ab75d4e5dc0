import { expect, test, vi } from "vitest";
import { runBenchmark } from "../helpers/benchmark.ts";
import { scaled } from "../helpers/timing.ts";

/**
 * The start-up and memory benchmark (bench/footprint/run.ts), which the start-up and RSS targets are
 * judged by, run with a short idle pause: the built service starts on the embedded database (a new
 * data folder, then the same one again) and on PostgreSQL, answers /readyz, forwards its first test
 * event to a receiver and serves 2,000 GraphQL requests, and each figure is reported. Nothing is
 * asserted about speed. On PostgreSQL only (its PostgreSQL configurations need a server).
 */
const serverUrl = process.env.TEST_DATABASE_URL;
vi.setConfig({ testTimeout: scaled(180_000) });

interface Results {
  results: Array<{ name: string; readyzMs: number; idleRssMb: number; firstEventMs: number; afterLoadRssMb: number }>;
}

test.skipIf(!serverUrl)("a short footprint benchmark starts the built service on both databases and reports each figure", async () => {
  const report = await runBenchmark<Results>("bench/footprint/run.ts", ["--idle", "1"], { serverUrl: serverUrl!, timeoutMs: scaled(150_000) });

  expect(report.results.map((row) => row.name)).toEqual([
    "embedded, first start (creates the database)",
    "embedded, next start",
    "embedded, next start, without the start script's node flags",
    "PostgreSQL, first start (migrates)",
    "PostgreSQL, next start",
  ]);
  for (const row of report.results) {
    expect(row.readyzMs, `${row.name}: /readyz`).toBeGreaterThan(0);
    expect(row.idleRssMb, `${row.name}: idle RSS`).toBeGreaterThan(0);
    expect(row.firstEventMs, `${row.name}: the first event's delivery`).toBeGreaterThan(0);
    expect(row.afterLoadRssMb, `${row.name}: RSS after the GraphQL requests`).toBeGreaterThan(0);
  }
});
