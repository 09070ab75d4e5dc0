/**
 * The fan-out benchmark (issue 5): N concurrent graphql-ws subscribers of `forwardedEvents` on one
 * deployment, E events fired through the real pipeline (sendTestEvent: recorded, queued, published,
 * delivered to a local receiver), and the latency from the event's acceptance (its `receivedAt`,
 * stamped by the database in the same transaction) to its arrival at every subscriber.
 *
 *   npm run bench:fanout                                  # 1,000 subscribers, 100 events, embedded database
 *   npm run bench:fanout -- --subscribers 200 --events 20
 *   npm run bench:fanout -- --redis                       # pub/sub through Redis (REDIS_URL or 127.0.0.1:6379)
 *   npm run bench:fanout -- --postgres                    # PostgreSQL (BENCH_DATABASE_URL, default 127.0.0.1:5432)
 *
 * The service runs as its own process (`node dist/main.js`, as `npm start`; `npm run build` makes it), so its RSS (the
 * process_resident_memory_bytes of its /metrics) is the server's alone; the subscribers live in
 * this process. Both share the machine: on 2 cores the figures include the clients' own work.
 * Writes the raw figures to bench/fanout/results.json. Exits non-zero only when an event did not
 * reach every subscriber, never because a target was missed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Client, createClient } from "graphql-ws";
import { benchDatabase } from "../database.ts";
import { freePort } from "../../test/helpers/serviceProcess.ts";
import WebSocket from "ws";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../..");

const { values: args } = parseArgs({
  options: {
    subscribers: { type: "string", default: "1000" },
    events: { type: "string", default: "100" },
    redis: { type: "boolean", default: false },
    /** PostgreSQL (a fresh database on BENCH_DATABASE_URL, dropped afterwards) instead of the embedded PGlite. */
    postgres: { type: "boolean", default: false },
    /** Pause between events (0: back to back, each as soon as the previous was accepted — saturation). */
    "interval-ms": { type: "string", default: "0" },
    out: { type: "string", default: join(here, "results.json") },
    /** Extra node flags for the service's process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof". */
    "service-flags": { type: "string", default: "" },
  },
});
const SUBSCRIBERS = Number(args.subscribers);
const EVENTS = Number(args.events);
const INTERVAL_MS = Number(args["interval-ms"]);
const TARGET_P99_MS = 250;

async function gql<T>(url: string, query: string, variables: Record<string, unknown>, token?: string): Promise<T> {
  const response = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  if (body.errors?.length || !body.data) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
  return body.data;
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const match = new RegExp(`^${name} ([0-9.e+]+)`, "m").exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function rssOf(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), "switchyard-fanout-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;

  // The deployment's forwarding URL: answers at once, so deliveries do not back up.
  const receiver = createHttpServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: "development",
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    PASSWORD_HASH_COST: "10",
    // Every subscriber comes from 127.0.0.1: the per-address socket limit (50) would refuse most.
    WS_MAX_PER_ADDRESS: "5000",
  };
  delete env.DATABASE_URL;
  const benchDb = benchDatabase();
  if (args.postgres) {
    await benchDb.create();
    env.DATABASE_URL = benchDb.url;
  }
  if (args.redis) {
    env.REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
    env.REDIS_KEY_PREFIX = `sy-bench-${randomBytes(4).toString("hex")}:`;
  } else {
    delete env.REDIS_URL;
  }
  const service: ChildProcess = spawn(process.execPath, [...args["service-flags"].split(" ").filter(Boolean), "dist/main.js"], { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
  const clients: Client[] = [];
  try {
    for (let started = Date.now(); ; ) {
      if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) break;
      if (service.exitCode !== null || Date.now() - started > 90_000) throw new Error("the service did not start");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // An operator, a deployment pointed at the receiver.
    const email = `bench-${randomBytes(4).toString("hex")}@example.com`;
    const { signUp } = await gql<{ signUp: { token: string } }>(
      url,
      `mutation($e: String!) { signUp(email: $e, password: "correct horse battery", name: "Bench") { token } }`,
      { e: email },
    );
    const token = signUp.token;
    const { createOrganization } = await gql<{ createOrganization: { deployments: { id: string; name: string }[] } }>(
      url,
      `mutation { createOrganization(name: "Bench") { deployments { id name } } }`,
      {},
      token,
    );
    const deploymentId = createOrganization.deployments.find((d) => d.name === "development")!.id;
    await gql(
      url,
      `mutation($d: ID!, $u: String!) { saveForwardingSettings(deploymentId: $d, input: { forwardingUrl: $u, triggers: [{ connector: "github", trigger: "issue_opened" }] }) { forwardingUrl } }`,
      { d: deploymentId, u: receiverUrl },
      token,
    );
    const rssIdle = await metric(url, "process_resident_memory_bytes");

    // N subscribers, each on its own connection, as N developers' `switchyard listen` would be.
    const arrivals = new Map<string, number[]>(); // event id → arrival times (ms since epoch)
    const connectStarted = Date.now();
    // In batches of 100, as people arrive over time rather than in one instant (all N at once, on a
    // loaded 2-core machine, outlasts graphql-ws's 3 s connection_init timeout on the client side).
    const waitForLive = async (count: number) => {
      for (;;) {
        const live = await metric(url, "switchyard_live_subscriptions");
        if (live >= count) return;
        if (Date.now() - connectStarted > 180_000) throw new Error(`only ${live} of ${count} subscriptions started`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    for (let i = 0; i < SUBSCRIBERS; i++) {
      if (i > 0 && i % 100 === 0) await waitForLive(i);
      const client = createClient({
        url: `${url.replace("http", "ws")}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${token}` },
        retryAttempts: 0,
      });
      clients.push(client);
      client.subscribe<{ forwardedEvents: { id: string } }>(
        { query: `subscription($d: ID!) { forwardedEvents(deploymentId: $d) { id type account delivery { status } } }`, variables: { d: deploymentId } },
        {
          next: (result) => {
            const now = Date.now();
            const id = result.data?.forwardedEvents.id;
            if (!id) return;
            let times = arrivals.get(id);
            if (!times) arrivals.set(id, (times = []));
            times.push(now);
          },
          error: (error) => console.error("subscriber error:", (error as { code?: number; reason?: string })?.code ?? "", (error as { reason?: string })?.reason ?? error),
          complete: () => {},
        },
      );
    }
    await waitForLive(SUBSCRIBERS);
    const connectSeconds = (Date.now() - connectStarted) / 1000;
    const rssSubscribed = await metric(url, "process_resident_memory_bytes");

    // E events, one after another, through the real pipeline.
    let rssPeak = rssSubscribed;
    // From /proc, not /metrics: collecting /metrics walks every open socket, which would load the server.
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssOf(service.pid!) ?? 0)), 250);
    const accepted = new Map<string, number>();
    const cpuBefore = await metric(url, "process_cpu_seconds_total");
    const fireStarted = Date.now();
    for (let i = 0; i < EVENTS; i++) {
      const { sendTestEvent } = await gql<{ sendTestEvent: { id: string; receivedAt: string } }>(
        url,
        `mutation($d: ID!) { sendTestEvent(deploymentId: $d, trigger: { connector: "github", trigger: "issue_opened" }) { id receivedAt } }`,
        { d: deploymentId },
        token,
      );
      accepted.set(sendTestEvent.id, Date.parse(sendTestEvent.receivedAt));
      if (INTERVAL_MS > 0) await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
    }
    const fireSeconds = (Date.now() - fireStarted) / 1000;
    const deadline = Date.now() + 30_000;
    while ([...accepted.keys()].some((id) => (arrivals.get(id)?.length ?? 0) < SUBSCRIBERS) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    clearInterval(sampler);
    const serverCpuSeconds = (await metric(url, "process_cpu_seconds_total")) - cpuBefore;
    rssPeak = Math.max(rssPeak, await metric(url, "process_resident_memory_bytes"));

    const latencies: number[] = [];
    const spreads: number[] = []; // first to last subscriber of each event: the fan-out alone
    let missing = 0;
    for (const [id, at] of accepted) {
      const times = arrivals.get(id) ?? [];
      missing += SUBSCRIBERS - times.length;
      for (const time of times) latencies.push(time - at);
      if (times.length) spreads.push(Math.max(...times) - Math.min(...times));
    }
    latencies.sort((x, y) => x - y);
    spreads.sort((x, y) => x - y);
    const result = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
      pubsub: args.redis ? "redis" : "in-process",
      database: args.postgres ? "postgresql" : "pglite",
      subscribers: SUBSCRIBERS,
      events: EVENTS,
      intervalMs: INTERVAL_MS,
      deliveredMessages: latencies.length,
      missingMessages: missing,
      connectSeconds,
      fireSeconds,
      latencyMs: {
        p50: percentile(latencies, 50),
        p90: percentile(latencies, 90),
        p99: percentile(latencies, 99),
        max: latencies.at(-1),
      },
      fanoutSpreadMs: { p50: percentile(spreads, 50), p99: percentile(spreads, 99), max: spreads.at(-1) },
      loadAverage1m: loadavg()[0],
      // CPU the server spent per event (record, publish, fan out to every subscriber, deliver once):
      // the figure that does not depend on what else the machine was doing.
      serverCpuMsPerEvent: Math.round((serverCpuSeconds * 1000) / EVENTS),
      // Sampled from the server's /metrics: before subscribers, with them connected, highest while firing.
      serverRssMb: { beforeSubscribers: mb(rssIdle), subscribed: mb(rssSubscribed), peakWhileFiring: mb(rssPeak) },
      targetP99Ms: TARGET_P99_MS,
      metTarget: percentile(latencies, 99) <= TARGET_P99_MS,
    };
    writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
    if (missing > 0) process.exitCode = 1;
  } finally {
    await Promise.all(clients.map((client) => client.dispose()));
    service.kill("SIGTERM");
    await new Promise((resolve) => (service.exitCode !== null ? resolve(null) : service.once("exit", resolve)));
    receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (args.postgres) await benchDb.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
