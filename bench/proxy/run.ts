/**
 * The authenticated proxy's benchmark (issue 19): one local fake API, called three ways in the same
 * run — directly, through a bare node:http pipe (servers.ts), and through Switchyard's proxy
 * (`/api/v1/proxy/github/<account>/items`, API key checked, connection read, token injected).
 *
 *   npm run bench:proxy                                  # 200 req/s for 10 s each, max rate for 10 s each, a 100 MB stream
 *   npx tsx bench/proxy/run.ts --rate 200 --duration 10 --connections 20 --stream-mb 100 --compiled
 *
 * Figures: added latency p50/p99 over direct at a paced rate (a small client timing each request
 * with performance.now(); autocannon's histogram has whole milliseconds), max throughput with
 * autocannon (the proxy against the bare pipe, the raw baseline of a hop), and the proxy process's
 * RSS (its /metrics `process_resident_memory_bytes`) while a large answer streams through it.
 * The service runs on PostgreSQL in a database of its own (BENCH_DATABASE_URL).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { createSecretBox } from "../../src/crypto/secrets.ts";
import { type Child, spawnNode } from "../../test/helpers/childProcess.ts";
import { COMPILED_ENTRY, serviceProcess } from "../../test/helpers/serviceProcess.ts";
import { benchDatabase } from "../database.ts";
import { createBenchOperator } from "../operator.ts";
import { processCpuSeconds } from "../processCpu.ts";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../..");
const { values: args } = parseArgs({
  options: {
    rate: { type: "string", default: "200" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "20" },
    "stream-mb": { type: "string", default: "100" },
    // Runs dist/main.js (npm run build) rather than the sources through tsx.
    compiled: { type: "boolean", default: false },
    // Writes V8 CPU profiles of the service (service-<pid>.cpuprofile), the fake API and the pipe into
    // this folder when they stop (../forwarding/profile.mjs); rank them with bench/cpuProfileTop.ts.
    "cpu-prof": { type: "string" },
    out: { type: "string", default: join(here, "results.json") },
  },
});
const RATE = Number(args.rate);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const STREAM_BYTES = Number(args["stream-mb"]) * 1024 * 1024;
const CPU_PROFILE = join(here, "../forwarding/profile.mjs");

async function startServer(role: string, ...rest: string[]): Promise<{ child: Child; url: string }> {
  // With --cpu-prof, the servers are profiled too (the bare pipe is the proxy's yardstick), the same
  // way as the service: node's own --cpu-prof would also profile tsx's loader thread.
  const profile = args["cpu-prof"] ? ["--import", CPU_PROFILE] : [];
  const env = { PATH: process.env.PATH ?? "", ...(args["cpu-prof"] ? { BENCH_CPU_PROF_DIR: args["cpu-prof"], BENCH_CPU_PROF_NAME: role } : {}) };
  const child = spawnNode([...profile, "--import", "tsx", join(here, "servers.ts"), role, ...rest], { cwd: root, env });
  for (let i = 0; i < 300; i++) {
    const port = /listening (\d+)/.exec(child.output())?.[1];
    if (port) return { child, url: `http://127.0.0.1:${port}` };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${role} did not start: ${child.output()}`);
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });
function timedGet(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { agent, headers }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`HTTP ${res.statusCode} from ${url}`))));
    });
    req.on("error", reject);
    req.end();
  });
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux): the hops' cost per request, which the machine's load barely moves. */
function cpuSecondsOf(pid: number): number {
  const { user, system } = processCpuSeconds(pid);
  return user + system;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

/** `rate` requests a second for `seconds`, each timed; p50/p99 in ms. */
async function paced(url: string, headers: Record<string, string>, rate: number, seconds: number) {
  const times: number[] = [];
  const total = rate * seconds;
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(timedGet(url, headers).then((ms) => void times.push(ms)));
  }
  await Promise.all(pending);
  times.sort((a, b) => a - b);
  return { requests: times.length, p50: percentile(times, 50), p99: percentile(times, 99) };
}

/**
 * autocannon at full speed; with `cpu`, the CPU time that process spent per request meanwhile (µs),
 * less what it spends idle (the service's own loops: delivery worker, poller), measured just before.
 */
async function maxRate(url: string, headers: Record<string, string>, cpu?: () => Promise<number> | number) {
  let idlePerSecond = 0;
  if (cpu) {
    const idleFrom = await cpu();
    const idleStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    idlePerSecond = ((await cpu()) - idleFrom) / ((performance.now() - idleStarted) / 1000);
  }
  const cpuBefore = await cpu?.();
  const started = performance.now();
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION });
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = await cpu?.();
  if (result.non2xx || result.errors) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const cpuMicrosPerRequest =
    cpuBefore === undefined || cpuAfter === undefined ? undefined : Math.round(((cpuAfter - cpuBefore - idlePerSecond * seconds) * 1e6) / result.requests.total);
  return { requestsPerSecond: Math.round(result.requests.average), p99: result.latency.p99, cpuMicrosPerRequest };
}

/** Streams `bytes` through `url`, sampling `rss()` every 100 ms; the RSS before, at its highest and after, in MB. */
async function streamRss(url: string, headers: Record<string, string>, bytes: number, rss: () => Promise<number>) {
  const before = await rss();
  const samples: number[] = [];
  let done = false;
  const sampler = (async () => {
    while (!done) {
      samples.push(await rss());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const started = performance.now();
  const received = await new Promise<number>((resolve, reject) => {
    request(url, { headers }, (res) => {
      let count = 0;
      res.on("data", (chunk: Buffer) => (count += chunk.length));
      res.on("end", () => resolve(count));
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
  const seconds = (performance.now() - started) / 1000;
  done = true;
  await sampler;
  if (received !== bytes) throw new Error(`streamed ${received} bytes of ${bytes}`);
  const mb = (value: number) => Math.round((value / 1024 / 1024) * 10) / 10;
  return { bytes, seconds: Math.round(seconds * 100) / 100, rssBeforeMb: mb(before), rssPeakMb: mb(Math.max(before, ...samples)), rssGrowthMb: mb(Math.max(before, ...samples) - before) };
}

const benchDb = benchDatabase();
await benchDb.create();
const children: Child[] = [];
const encryptionKey = randomBytes(32);
let service: Awaited<ReturnType<typeof serviceProcess>> | undefined;
try {
  const api = await startServer("api");
  children.push(api.child);
  const pipe = await startServer("pipe", api.url);
  children.push(pipe.child);
  service = await serviceProcess(
    {
      DATABASE_URL: benchDb.url,
      ENCRYPTION_KEY: encryptionKey.toString("base64"),
      RATE_LIMIT_PER_MINUTE: "100000000",
      CONNECTOR_GITHUB_API_URL: api.url,
      PROXY_MAX_BODY: String(10 * 1024 * 1024),
      ...(args["cpu-prof"] ? { NODE_OPTIONS: `--import ${CPU_PROFILE}`, BENCH_CPU_PROF_DIR: args["cpu-prof"] } : {}),
    },
    args.compiled ? { entry: COMPILED_ENTRY } : {},
  );
  await service.start();
  const operator = await createBenchOperator(service.url);
  const apiKey = await operator.apiKey(operator.development);
  // The connection, as a completed connect flow stores it (a GitHub OAuth app token: no expiry).
  const db = new pg.Client({ connectionString: benchDb.url });
  await db.connect();
  await db.query(
    `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, status, params, metadata, created_at, updated_at)
     values ($1, $2, 'github', 'alice', '583231', $3, '{repo}', 'ACTIVE', '{}', '{}', now(), now())`,
    [randomUUID(), operator.development, createSecretBox(encryptionKey).seal("gho_bench_token")],
  );
  await db.end();

  const key = { "x-api-key": apiKey };
  const proxied = (path: string) => `${service!.url}/api/v1/proxy/github/alice/${path}`;
  const ways = {
    direct: { url: `${api.url}/items`, headers: { authorization: "Bearer gho_bench_token" } },
    pipe: { url: `${pipe.url}/items`, headers: {} },
    proxy: { url: proxied("items"), headers: key },
  };
  // Warm up every path (JIT, keep-alive sockets, the key and connection reads).
  for (const way of Object.values(ways)) await paced(way.url, way.headers, 200, 2);

  const latency: Record<string, { requests: number; p50: number; p99: number }> = {};
  for (const [name, way] of Object.entries(ways)) latency[name] = await paced(way.url, way.headers, RATE, DURATION);
  const serviceMetric = async (name: string) => {
    const text = await (await fetch(`${service!.url}/metrics`)).text();
    return Number(new RegExp(`^${name} ([\\d.e+-]+)`, "m").exec(text)?.[1] ?? 0);
  };
  // The CPU each hop spends per request: the bare pipe's from /proc, the service's from its own /metrics.
  const cpuOf: Record<string, (() => Promise<number> | number) | undefined> = {
    direct: () => cpuSecondsOf(api.child.process.pid!),
    pipe: () => cpuSecondsOf(pipe.child.process.pid!),
    proxy: () => serviceMetric("process_cpu_seconds_total"),
  };
  const throughput: Record<string, { requestsPerSecond: number; p99: number; cpuMicrosPerRequest?: number }> = {};
  for (const [name, way] of Object.entries(ways)) throughput[name] = await maxRate(way.url, way.headers, cpuOf[name]);

  const rssOfService = () => serviceMetric("process_resident_memory_bytes");
  const stream = await streamRss(proxied(`large?bytes=${STREAM_BYTES}`), key, STREAM_BYTES, rssOfService);

  const round = (n: number) => Math.round(n * 1000) / 1000;
  const figures = {
    at: new Date().toISOString(),
    loadAverage: loadavg()[0],
    settings: { rate: RATE, duration: DURATION, connections: CONNECTIONS, compiled: args.compiled },
    latency,
    addedLatencyMs: {
      pipe: { p50: round(latency.pipe.p50 - latency.direct.p50), p99: round(latency.pipe.p99 - latency.direct.p99) },
      proxy: { p50: round(latency.proxy.p50 - latency.direct.p50), p99: round(latency.proxy.p99 - latency.direct.p99) },
    },
    throughput,
    proxyVsPipe: round(throughput.proxy.requestsPerSecond / throughput.pipe.requestsPerSecond),
    stream,
  };
  writeFileSync(args.out, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(JSON.stringify(figures, null, 2));
  const goals = [
    ["added latency p50 ≤ 1 ms", figures.addedLatencyMs.proxy.p50 <= 1],
    ["added latency p99 ≤ 5 ms", figures.addedLatencyMs.proxy.p99 <= 5],
    ["throughput ≥ 0.7 × the bare pipe", figures.proxyVsPipe >= 0.7],
    ["RSS flat while streaming (growth < 50 MB)", stream.rssGrowthMb < 50],
  ] as const;
  for (const [goal, met] of goals) console.log(`${met ? "met   " : "MISSED"} ${goal}`);
} finally {
  await service?.stop();
  for (const child of children) await child.stop();
  await benchDb.drop();
}
