/**
 * `npm run bench`: every benchmark, in shortened form (about five minutes in all), then one table
 * of each goal's figure against its target. Each benchmark still runs its service and its baseline
 * in the same run, so the ratios compare like with like; for publishable figures run each one on
 * its own with its defaults (bench/README.md). Needs PostgreSQL (BENCH_DATABASE_URL, default
 * postgresql://postgres@127.0.0.1:5432/postgres) and the build (`npm run build`, which `npm install`
 * runs). Writes bench/results.json. Exits non-zero when a benchmark failed, not when a goal is missed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const scratch = mkdtempSync(join(tmpdir(), "sy-bench-"));
const out = (name: string) => join(scratch, `${name}.json`);

interface Step {
  name: string;
  script: string;
  args: string[];
}

const steps: Step[] = [
  { name: "footprint", script: "bench/footprint/run.ts", args: ["--idle", "3", "--out", out("footprint")] },
  { name: "data", script: "bench/data/run.ts", args: ["--rounds", "2", "--duration", "5", "--warmup", "1", "--out", out("data")] },
  { name: "forwarding", script: "bench/forwarding/run.ts", args: ["--duration", "6", "--out", out("forwarding")] },
  { name: "fanout", script: "bench/fanout/run.ts", args: ["--postgres", "--events", "30", "--out", out("fanout")] },
];
// The event log's own benchmark, when this checkout has it.
if (existsSync(join(here, "eventlog", "run.ts"))) steps.push({ name: "eventlog", script: "bench/eventlog/run.ts", args: ["--quick"] });

if (!existsSync(join(root, "dist", "main.js"))) {
  console.error("dist/main.js is missing: run `npm run build` first (npm install does it).");
  process.exit(1);
}

const loads: number[] = [];
const failed: string[] = [];
const started = Date.now();
for (const step of steps) {
  loads.push(loadavg()[0]);
  console.log(`\n━━ ${step.name} (load average ${loadavg()[0].toFixed(1)}) ━━`);
  const result = spawnSync(process.execPath, ["--import", "tsx", step.script, ...step.args], { cwd: root, stdio: "inherit", env: process.env });
  if (result.status !== 0) failed.push(step.name);
}
loads.push(loadavg()[0]);

const read = <T>(name: string): T | undefined => {
  try {
    return JSON.parse(readFileSync(out(name), "utf8")) as T;
  } catch {
    return undefined;
  }
};

type Row = { goal: string; value: number | null | undefined; target: number; better: "higher" | "lower"; unit: string };
const rows: Row[] = [];

const data = read<{ ratios: { name: string; value: number; target?: number }[] }>("data");
const ratio = (name: string) => data?.ratios.find((r) => r.name === name)?.value;
rows.push({ goal: "GraphQL dataItems, API key ÷ REST", value: ratio("GraphQL (POST, key) ÷ REST first page"), target: 0.6, better: "higher", unit: "×" });
rows.push({ goal: "GraphQL dataItems, console session ÷ REST", value: ratio("GraphQL (POST, session) ÷ REST first page"), target: 0.6, better: "higher", unit: "×" });
rows.push({ goal: "GET /api/data ÷ raw", value: ratio("REST first page ÷ raw first page"), target: 0.8, better: "higher", unit: "×" });
rows.push({ goal: "GET /api/data deep ÷ first page", value: ratio("REST deep page ÷ REST first page"), target: 0.5, better: "higher", unit: "×" });

const forwarding = read<{ maxRateRatio: number; addedE2eP99Ms: number }>("forwarding");
rows.push({ goal: "forwarding at max rate ÷ raw", value: forwarding?.maxRateRatio, target: 0.5, better: "higher", unit: "×" });
rows.push({ goal: "forwarding at 200/s, added end-to-end p99", value: forwarding?.addedE2eP99Ms, target: 50, better: "lower", unit: "ms" });

type Footprint = { name: string; readyzMs: number; cpuToReadyzMs: number; idleRssMb: number };
const footprint = read<{ results: Footprint[] }>("footprint")?.results ?? [];
const fp = (prefix: string) => footprint.find((r) => r.name.startsWith(prefix));
rows.push({ goal: "first start (embedded): /readyz after", value: fp("embedded, first")?.readyzMs, target: 1500, better: "lower", unit: "ms" });
rows.push({ goal: "next start (embedded): /readyz after", value: fp("embedded, next")?.readyzMs, target: 1000, better: "lower", unit: "ms" });
rows.push({ goal: "next start (PostgreSQL): /readyz after", value: fp("PostgreSQL, next")?.readyzMs, target: 1000, better: "lower", unit: "ms" });
rows.push({ goal: "idle RSS, embedded", value: fp("embedded, next")?.idleRssMb, target: 200, better: "lower", unit: "MB" });
rows.push({ goal: "idle RSS, PostgreSQL", value: fp("PostgreSQL, next")?.idleRssMb, target: 100, better: "lower", unit: "MB" });

const fanout = read<{ latencyMs: { p99: number }; serverRssMb: { subscribed: number; peakWhileFiring: number } }>("fanout");
rows.push({ goal: "1,000 subscribers (PostgreSQL): RSS subscribed", value: fanout?.serverRssMb.subscribed, target: 350, better: "lower", unit: "MB" });
rows.push({ goal: "1,000 subscribers (PostgreSQL): p99", value: fanout?.latencyMs.p99, target: 250, better: "lower", unit: "ms" });

const verdict = (row: Row) =>
  row.value == null || Number.isNaN(row.value) ? "not measured" : (row.better === "higher" ? row.value >= row.target : row.value <= row.target) ? "met" : "MISSED";
const shown = (value: number | null | undefined, unit: string) =>
  value == null || Number.isNaN(value) ? "—" : unit === "×" ? `${value.toFixed(2)}×` : `${Math.round(value)} ${unit}`;
const table = rows.map((row) => ({
  goal: row.goal,
  value: shown(row.value, row.unit),
  target: `${row.better === "higher" ? "≥" : "≤"} ${row.unit === "×" ? `${row.target}×` : `${row.target} ${row.unit}`}`,
  verdict: verdict(row),
}));

console.log(`\n━━ Summary: ${Math.round((Date.now() - started) / 1000)} s; load average (1 min) ${loads.map((l) => l.toFixed(1)).join(" → ")} on ${(await import("node:os")).cpus().length} cores ━━`);
const widths = ["goal", "value", "target", "verdict"].map((key) => Math.max(key.length, ...table.map((r) => r[key as keyof typeof r].length)));
const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join("  ");
console.log(line(["goal", "value", "target", "verdict"]));
console.log(line(widths.map((w) => "-".repeat(w))));
for (const row of table) console.log(line([row.goal, row.value, row.target, row.verdict]));
if (failed.length) console.log(`\nFailed: ${failed.join(", ")}`);
console.log("Throughput ratios compare the service with its baseline in the same run; on a loaded machine they move by ±0.1 or more.");

writeFileSync(join(here, "results.json"), `${JSON.stringify({ date: new Date().toISOString(), loads, rows, failed }, null, 2)}\n`);
if (failed.length) process.exitCode = 1;
