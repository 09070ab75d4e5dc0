import { expect, test, vi } from "vitest";
import { runBenchmark } from "../helpers/benchmark.ts";
import { scaled } from "../helpers/timing.ts";

/**
 * The data-listing benchmark (bench/data/run.ts), which the GraphQL ÷ REST target is judged by, run
 * briefly over a small listing: every configuration (the raw baseline, REST, GraphQL with a key and
 * with a session, over POST and GET) serves its pages without a failed request, and the ratios
 * docs/benchmarks.md reads are computed. Nothing is asserted about speed. On PostgreSQL only.
 */
const serverUrl = process.env.TEST_DATABASE_URL;
vi.setConfig({ testTimeout: scaled(180_000) });

interface Results {
  results: Array<{ name: string; requestsPerSecond: number; errors: number; timeouts: number; non2xx: number }>;
  ratios: Array<{ name: string; value: number }>;
}

test.skipIf(!serverUrl)("a short data benchmark serves every configuration's pages and reports the ratios", async () => {
  const report = await runBenchmark<Results>("bench/data/run.ts", ["--rounds", "1", "--duration", "1", "--warmup", "0", "--connections", "5", "--items", "2000"], {
    serverUrl: serverUrl!,
    timeoutMs: scaled(150_000),
  });

  expect(report.results.map((row) => row.name)).toEqual(
    expect.arrayContaining(["raw first page", "REST first page", "REST deep page", "GraphQL first page (POST, key)", "GraphQL first page (POST, session)", "GraphQL first page (GET, session)"]),
  );
  for (const row of report.results) {
    expect(row.requestsPerSecond, `${row.name} served nothing`).toBeGreaterThan(0);
    expect(row.errors + row.timeouts + row.non2xx, `${row.name} had failed requests`).toBe(0);
  }
  const ratios = Object.fromEntries(report.ratios.map((ratio) => [ratio.name, ratio.value]));
  expect(ratios["GraphQL (POST, key) ÷ REST first page"]).toBeGreaterThan(0);
  expect(ratios["GraphQL (POST, session) ÷ REST first page"]).toBeGreaterThan(0);
});
