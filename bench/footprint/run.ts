/**
 * Start-up time and memory of the service as it is deployed: `node <flags> dist/main.js` (what `npm start`
 * runs; build it with `npm run build`), one process, on each database.
 *
 *   npm run bench:footprint                      # embedded (fresh + existing data) and PostgreSQL
 *   npm run bench:footprint -- --idle 10         # seconds to wait before reading the idle RSS
 *   npm run bench:footprint -- --npm-start       # also through `npm start` (npm's own process on top)
 *
 * Per configuration: time from spawn to the first 200 from /readyz (ready: the database is
 * reachable), the CPU and the RSS once idle (after a GC-friendly pause), the first forwarded event (from the
 * sendTestEvent request to its POST reaching a local receiver: the delivery path's first use in the
 * process, its lazily loaded modules included), then the RSS after 2,000 GraphQL requests (sign-up,
 * organization, pages) and idle again. RSS is read from /proc/<pid>/status (VmRSS, the whole
 * process: V8 heap, PGlite's WebAssembly memory, native buffers). Targets: /readyz ≤ 1.5 s fresh and
 * ≤ 1.0 s after, idle RSS (10 s after ready) ≤ 100 MB on PostgreSQL and ≤ 200 MB embedded. Writes
 * bench/footprint/results.json.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:http";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { benchDatabase } from "../database.ts";
import { freePort, START_FLAGS } from "../../test/helpers/serviceProcess.ts";
import { type BenchOperator, createBenchOperator } from "../operator.ts";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const { values: args } = parseArgs({
  options: {
    idle: { type: "string", default: "10" },
    "npm-start": { type: "boolean", default: false },
    out: { type: "string", default: join(here, "results.json") },
  },
});
const IDLE_SECONDS = Number(args.idle);

if (!existsSync(join(root, "dist", "main.js"))) {
  console.error("dist/main.js is missing: run `npm run build` first (npm install does it).");
  process.exit(1);
}

/** Resident memory of a process and its children (npm start: npm + node), in MB. */
function rssMb(pid: number): number {
  const own = Number(/VmRSS:\s+(\d+)/.exec(safeRead(`/proc/${pid}/status`))?.[1] ?? 0) / 1024;
  let children = 0;
  for (const task of safeRead(`/proc/${pid}/task/${pid}/children`).split(/\s+/).filter(Boolean)) children += rssMb(Number(task));
  return own + children;
}
/** CPU time (user + system) of a process and its children so far, in ms (clock ticks are 10 ms). */
function cpuMs(pid: number): number {
  const fields = safeRead(`/proc/${pid}/stat`).split(") ")[1]?.split(" ") ?? [];
  let own = (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 10;
  for (const task of safeRead(`/proc/${pid}/task/${pid}/children`).split(/\s+/).filter(Boolean)) own += cpuMs(Number(task));
  return own;
}
const safeRead = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Measured {
  name: string;
  /** The 1-minute load average just before the start. */
  load: number;
  readyzMs: number;
  /** CPU the process (tree) used until /readyz answered: steadier than wall time on a busy machine. */
  cpuToReadyzMs: number;
  /** CPU (ms a second) the process tree used idle: timers, polls, metrics. */
  idleCpuMsPerSecond: number;
  idleRssMb: number;
  /** From sending the first test event to its POST reaching the receiver. */
  firstEventMs: number;
  afterLoadRssMb: number;
  peakRssMb: number;
}

async function measure(name: string, command: string[], env: Record<string, string>): Promise<Measured> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child: ChildProcess = spawn(command[0], command.slice(1), {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: url, LOG_LEVEL: "warn", SIGNUP: "open", ...env },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true, // its own process group: `npm start` does not pass SIGTERM on to node
  });
  let peak = 0;
  const sampler = setInterval(() => child.pid && (peak = Math.max(peak, rssMb(child.pid))), 100);
  try {
    const load = loadavg()[0];
    let readyzMs = Number.NaN;
    let cpuToReadyzMs = Number.NaN;
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
      if (child.exitCode !== null) throw new Error(`${name}: the service exited with ${child.exitCode}`);
      try {
        // Ready, not merely up: /readyz answers 200 once the database is reachable.
        if ((await fetch(`${url}/readyz`)).status === 200) {
          readyzMs = performance.now() - started;
          cpuToReadyzMs = cpuMs(child.pid!);
          break;
        }
      } catch {
        // not listening yet
      }
      await sleep(10);
    }
    // The CPU of an idle process: read over the wait's second half, after what a start leaves to run
    // once the port is open (loading the delivery path's modules, the first polls).
    await sleep((IDLE_SECONDS * 1000) / 2);
    const idleFrom = { cpu: cpuMs(child.pid!), at: performance.now() };
    await sleep((IDLE_SECONDS * 1000) / 2);
    const idleCpuMsPerSecond = ((cpuMs(child.pid!) - idleFrom.cpu) * 1000) / (performance.now() - idleFrom.at);
    const idleRssMb = rssMb(child.pid!);

    const operator = await createBenchOperator(url);
    const firstEventMs = await firstForwardedEvent(url, operator);

    // Some real work, then idle again: what the process keeps after serving.
    const body = JSON.stringify({
      query: "query($id: ID!) { deployment(id: $id) { name dataItems { totalCount nodes { id name } } } }",
      variables: { id: operator.production },
    });
    const headers = { "content-type": "application/json", cookie: `sy_session=${operator.token}` };
    // The page is checked once (a GraphQL error is answered 200), then every answer's status: the
    // memory after load means something only if the load was served.
    const page = (await (await fetch(`${url}/graphql`, { method: "POST", headers, body })).json()) as { data?: { deployment: unknown } };
    if (!page.data?.deployment) throw new Error(`${name}: the GraphQL page was not served: ${JSON.stringify(page)}`);
    const served = await autocannon({ url: `${url}/graphql`, method: "POST", headers, body, connections: 20, amount: 2000 });
    const failed = served.errors + served.timeouts + served.non2xx;
    if (failed > 0) throw new Error(`${name}: ${failed} of the 2,000 GraphQL requests failed`);
    await sleep(IDLE_SECONDS * 1000);
    const afterLoadRssMb = rssMb(child.pid!);
    return { name, load, readyzMs, cpuToReadyzMs, idleCpuMsPerSecond, idleRssMb, firstEventMs, afterLoadRssMb, peakRssMb: Math.max(peak, afterLoadRssMb) };
  } finally {
    clearInterval(sampler);
    const exited = new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once("exit", resolve)));
    process.kill(-child.pid!, "SIGTERM");
    await exited;
  }
}

/** Milliseconds from the sendTestEvent request to its POST arriving at a receiver on this machine. */
async function firstForwardedEvent(url: string, operator: BenchOperator): Promise<number> {
  let arrived: (at: number) => void;
  const arrival = new Promise<number>((resolve) => (arrived = resolve));
  const receiver = createServer((req, res) => {
    arrived(performance.now());
    req.resume().on("end", () => res.end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const forwardingUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    await operator.gql(
      "mutation($d: ID!, $i: ForwardingSettingsInput!) { saveForwardingSettings(deploymentId: $d, input: $i) { forwardingUrl } }",
      { d: operator.production, i: { forwardingUrl, triggers: [] } },
    );
    const sent = performance.now();
    await operator.gql('mutation($d: ID!) { sendTestEvent(deploymentId: $d, trigger: { connector: "github", trigger: "issue_opened" }) { id } }', {
      d: operator.production,
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<number>((resolve) => (timer = setTimeout(() => resolve(Number.NaN), 30_000)));
    const arrivedAt = await Promise.race([arrival, timeout]);
    clearTimeout(timer);
    return arrivedAt - sent;
  } finally {
    receiver.close();
  }
}

// Node loads fetch's implementation on its first call: done here, not while the first start is
// timed, where it took CPU from the starting service on a machine of two cores.
await fetch("http://127.0.0.1:1/").catch(() => undefined);
const results: Measured[] = [];
// The receiver of the first forwarded event listens on this machine: a private address.
const common = { NODE_ENV: "production", ENCRYPTION_KEY: randomBytes(32).toString("base64"), FORWARDING_ALLOW_PRIVATE: "true" };
const dataDir = mkdtempSync(join(tmpdir(), "sy-footprint-"));
const benchDb = benchDatabase();
await benchDb.create();
try {
  // The deployed command is `npm start`'s, run without npm: its node flags come from package.json.
  const node = [process.execPath, ...START_FLAGS, "dist/main.js"];
  results.push(await measure("embedded, first start (creates the database)", node, { ...common, DATA_DIR: dataDir }));
  results.push(await measure("embedded, next start", node, { ...common, DATA_DIR: dataDir }));
  results.push(await measure("embedded, next start, without the start script's node flags", [process.execPath, "dist/main.js"], { ...common, DATA_DIR: dataDir }));
  results.push(await measure("PostgreSQL, first start (migrates)", node, { ...common, DATABASE_URL: benchDb.url }));
  results.push(await measure("PostgreSQL, next start", node, { ...common, DATABASE_URL: benchDb.url }));
  if (args["npm-start"]) {
    results.push(await measure("PostgreSQL, `npm start` (npm + node)", ["npm", "start", "--silent"], { ...common, DATABASE_URL: benchDb.url }));
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  await benchDb.drop();
}

const load = loadavg()[0];
console.log(`\nLoad average ${load.toFixed(1)}; idle = ${IDLE_SECONDS} s after /readyz, and again after 2,000 GraphQL requests\n`);
console.table(
  results.map((r) => ({
    configuration: r.name,
    "load": r.load.toFixed(1),
    "/readyz ms": Math.round(r.readyzMs),
    "CPU to /readyz ms": Math.round(r.cpuToReadyzMs),
    "idle CPU ms/s": r.idleCpuMsPerSecond.toFixed(1),
    "idle RSS MB": Math.round(r.idleRssMb),
    "first event ms": Math.round(r.firstEventMs),
    "after load MB": Math.round(r.afterLoadRssMb),
    "peak MB": Math.round(r.peakRssMb),
  })),
);
writeFileSync(args.out, JSON.stringify({ date: new Date().toISOString(), load, idleSeconds: IDLE_SECONDS, results }, null, 2) + "\n");
