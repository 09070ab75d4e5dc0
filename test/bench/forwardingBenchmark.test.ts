import { expect, test, vi } from "vitest";
import { runBenchmark } from "../helpers/benchmark.ts";
import { scaled } from "../helpers/timing.ts";

/**
 * The forwarding benchmark (bench/forwarding/run.ts) is what the forwarding targets are judged by,
 * so it is run here, briefly, as a user of the repository runs it: the built service, graphile-worker
 * and the naive forwarder, each at a fixed rate and then at the maximum rate for a moment. Nothing is
 * asserted about speed (goals live in the benchmark's figures, docs/benchmarks.md); what is asserted
 * is that the run completes and that every event a forwarder answered 2xx reached the receiver, once.
 *
 * On PostgreSQL only (the benchmark uses a database server of its own choosing, here the suite's).
 */
const serverUrl = process.env.TEST_DATABASE_URL;
vi.setConfig({ testTimeout: scaled(240_000) });

interface Results {
  results: Array<{ target: string; mode: string; accepted: number; delivered: number }>;
  lost: Record<string, number>;
  duplicates: Record<string, number>;
  maxRateRatio: number | null;
  maxRateVsGraphile: number | null;
}

test.skipIf(!serverUrl)("a short forwarding benchmark runs every peer, and no forwarder loses or repeats an accepted event", async () => {
  const report = await runBenchmark<Results>(
    "bench/forwarding/run.ts",
    [
      ...["--only", "switchyard,graphile,naive", "--rounds", "1", "--duration", "2", "--warmup", "1", "--rate", "50", "--hanging-rate", "0"],
      // An event still missing this long after its phase is lost: reported, rather than waited for until the test times out.
      ...["--drain-timeout", String(Math.round(scaled(20_000) / 1000))],
    ],
    { serverUrl: serverUrl!, timeoutMs: scaled(200_000) },
  );

  // Each forwarder at the fixed rate and at the maximum rate, every one of its events accounted for.
  for (const target of ["switchyard", "graphile", "naive"]) {
    const phases = report.results.filter((row) => row.target === target).map((row) => row.mode);
    expect(phases, target).toEqual(expect.arrayContaining(["50/s", "max #1"]));
    expect(report.lost[target], `${target} lost events it had answered 2xx`).toBe(0);
    expect(report.duplicates[target], `${target} delivered an event twice`).toBe(0);
  }
  for (const row of report.results) {
    expect(row.accepted, `${row.target} ${row.mode} accepted nothing`).toBeGreaterThan(0);
    // The receiver's own count, beside the benchmark's title-by-title one above.
    expect(row.delivered, `${row.target} ${row.mode}: fewer events reached the receiver than were answered 2xx`).toBeGreaterThanOrEqual(row.accepted);
  }
  // The summary's ratios are computed from the rounds, as docs/benchmarks.md reads them.
  expect(report.maxRateRatio).toBeGreaterThan(0);
  expect(report.maxRateVsGraphile).toBeGreaterThan(0);
});
