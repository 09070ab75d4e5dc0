import { expect, test, vi } from "vitest";
import { runBenchmark } from "../helpers/benchmark.ts";
import { scaled } from "../helpers/timing.ts";

/**
 * The embedded database's forwarding benchmark (bench/embedded/run.ts), one short round: the built
 * service on a data folder of its own takes signed GitHub webhooks at the maximum rate and forwards
 * them; the run exits 0 only when every event answered `forwarded` reached the receiver and no
 * request failed. Nothing is asserted about speed. In the embedded pass of the suite only: it needs
 * no PostgreSQL server, and the PostgreSQL pass would run the same thing again.
 */
vi.setConfig({ testTimeout: scaled(120_000) });

interface Report {
  results: Array<{ build: string; acceptedPerSecond: number; deliveredPerSecond: number; lost: number; errors: number }>;
}

test.skipIf(Boolean(process.env.TEST_DATABASE_URL))("a short embedded forwarding benchmark forwards every event it accepted and reports its rates", async () => {
  const report = await runBenchmark<Report>("bench/embedded/run.ts", ["--rounds", "1", "--duration", "2", "--warmup", "0"], { timeoutMs: scaled(100_000) });
  expect(report.results).toHaveLength(1);
  const [round] = report.results;
  expect(round).toMatchObject({ build: "a", lost: 0, errors: 0 });
  expect(round.acceptedPerSecond).toBeGreaterThan(0);
  expect(round.deliveredPerSecond).toBeGreaterThan(0);
});
