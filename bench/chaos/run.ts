/**
 * The chaos run (issue 20): faults injected under two `node dist/main.js` instances that share their
 * own PostgreSQL and Redis (started here on free ports, and stopped here), while signed GitHub
 * webhooks stream into both. For each scenario one table row: what was accepted (2xx), what reached
 * the receiver (unique webhook-id), what was lost (accepted, never delivered within the drain
 * window), duplicates (the same webhook-id twice), the answers seen, and whether and how fast the
 * service recovered by itself.
 *
 *   npm run bench:chaos                              # every scenario, 10 s faults, 10 webhooks/s
 *   npm run bench:chaos -- --fault 5 --rate 5        # shorter and lighter, on a loaded machine
 *   npm run bench:chaos -- --only redis,kill9        # some scenarios only
 *
 * Scenarios: `redis` (Redis stopped), `postgres` (PostgreSQL stopped at once, as a crash would),
 * `hanging` (one deployment's receiver never answers, beside a healthy one; it answers again when
 * the fault ends), `sigterm` (one instance stopped gracefully while its receiver is slow, then
 * started again), `kill9` (one instance killed, then started again). Not part of `npm test`.
 * Needs redis-server and PostgreSQL's initdb/postgres binaries; builds dist/ when it is missing.
 */
import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import { availableParallelism, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { githubIssuesPayload, githubWebhook } from "../../test/helpers/fakeProviders/github.ts";
import { type OwnPostgres, type OwnServer, ownPostgres, ownRedis, ownServersMissing } from "../../test/helpers/ownServers.ts";
import { COMPILED_ENTRY, type ServiceProcess, serviceProcess } from "../../test/helpers/serviceProcess.ts";
import { createBenchOperator } from "../operator.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SCENARIOS = ["redis", "postgres", "hanging", "sigterm", "kill9"] as const;
type Scenario = (typeof SCENARIOS)[number];
const { values: args } = parseArgs({
  options: {
    rate: { type: "string", default: "10" }, // webhooks per second, over both instances
    fault: { type: "string", default: "10" }, // seconds each fault lasts
    before: { type: "string", default: "3" }, // seconds of streaming before the fault
    after: { type: "string", default: "5" }, // seconds of streaming after it
    drain: { type: "string", default: "90" }, // seconds to wait for what was accepted to arrive
    slow: { type: "string", default: "4000" }, // ms the slow receiver takes (sigterm, kill9)
    only: { type: "string" },
  },
});
const RATE = Number(args.rate);
const FAULT_MS = Number(args.fault) * 1000;
const BEFORE_MS = Number(args.before) * 1000;
const AFTER_MS = Number(args.after) * 1000;
const DRAIN_MS = Number(args.drain) * 1000;
const SLOW_MS = Number(args.slow);
const only = args.only ? (args.only.split(",") as Scenario[]) : [...SCENARIOS];
const unknown = only.filter((name) => !SCENARIOS.includes(name));
if (unknown.length) {
  console.error(`Unknown scenario ${unknown.join(", ")}: choose from ${SCENARIOS.join(", ")}.`);
  process.exit(1);
}
const SECRET = "chaos-github-webhook-secret";

if (ownServersMissing) {
  console.error(`The chaos run needs its own servers: ${ownServersMissing}.`);
  process.exit(1);
}
if (!existsSync(join(root, "dist", "main.js"))) {
  console.log("dist/main.js is missing: building it (npm run build:server)…");
  execFileSync("npm", ["run", "build:server", "--silent"], { cwd: root, stdio: "inherit" });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** Polls `check` until it holds, saying what it waits for; resolves with the ms it took. */
async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 120_000): Promise<number> {
  const started = Date.now();
  console.log(`  waiting for ${what}…`);
  while (!(await Promise.resolve().then(check).catch(() => false))) {
    if (Date.now() - started > timeoutMs) throw new Error(`gave up waiting for ${what} after ${seconds(timeoutMs)} s`);
    await sleep(100);
  }
  console.log(`  … ${what}: ${seconds(Date.now() - started)} s`);
  return Date.now() - started;
}

// ── The operator's receivers: /ok answers at once, /slow after SLOW_MS, /hang not while hanging. ──
/** Per deployment: arrivals by webhook-id, and by the webhook's own mark (its issue title). */
const arrivals = new Map<string, { ids: Map<string, number>; marks: Set<string>; latencies: number[] }>();
let hanging = true;
const held: ServerResponse[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const [, kind, deployment] = (req.url ?? "").split("/");
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const answer = () => {
      // Counted when answered 2xx: what the service is told was delivered.
      const seen = arrivals.get(deployment) ?? arrivals.set(deployment, { ids: new Map(), marks: new Set(), latencies: [] }).get(deployment)!;
      const id = String(req.headers["webhook-id"]);
      seen.ids.set(id, (seen.ids.get(id) ?? 0) + 1);
      const mark = String((body.data ?? body).issue.title); // "chaos <n> <sent at> <uuid>"
      if (!seen.marks.has(mark)) seen.latencies.push(Date.now() - Number(mark.split(" ")[2]));
      seen.marks.add(mark);
      if (!res.destroyed) res.writeHead(200).end("ok");
    };
    if (kind === "slow") setTimeout(answer, SLOW_MS);
    else if (kind === "hang" && hanging) held.push(res);
    else answer();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;

// ── Servers and instances ──
let postgres: OwnPostgres | undefined;
let redis: OwnServer | undefined;
const instances: ServiceProcess[] = [];
let cleaningUp: Promise<void> | undefined;
const cleanUp = () =>
  (cleaningUp ??= (async () => {
    hanging = false;
    for (const res of held.splice(0)) res.destroy();
    receiver.closeAllConnections();
    receiver.close();
    await Promise.all(instances.map((instance) => instance.stop().catch(() => undefined)));
    await Promise.all([redis?.stopNow(), postgres?.remove()].map((stopping) => stopping?.catch(() => undefined)));
  })());
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void cleanUp().finally(() => process.exit(130)));

interface Row {
  scenario: string;
  accepted: number;
  delivered: number;
  lost: number;
  duplicates: number;
  statuses: string;
  recovered: string;
  notes: string;
}
const rows: Row[] = [];
const load = { before: loadavg()[0], after: 0 };

try {
  console.log(`Starting PostgreSQL and Redis of the run's own (load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores)…`);
  [postgres, redis] = await Promise.all([ownPostgres(), ownRedis()]);
  await Promise.all([postgres.start(), redis.start()]);
  const env = {
    DATABASE_URL: postgres.url,
    REDIS_URL: redis.url,
    CONNECTOR_GITHUB_WEBHOOK_SECRET: SECRET,
    // Retries soon enough to land within the drain window.
    DELIVERY_RETRY_SCHEDULE: "1s,2s,5s,10s,20s,30s",
  };
  // One after the other: both would apply the migrations at once.
  for (const name of ["A", "B"]) {
    console.log(`Starting instance ${name} (node dist/main.js): waiting for its /readyz to answer 200…`);
    const instance = await serviceProcess(env, { entry: COMPILED_ENTRY });
    instances.push(instance);
    await instance.start();
  }
  const [a] = instances;
  const operator = await createBenchOperator(a.url);

  /** A deployment of its own per scenario, forwarding to the receiver of that `kind`, with the GitHub account every payload comes from. */
  async function deploymentForwardingTo(kind: "ok" | "slow" | "hang"): Promise<string> {
    const { createOrganization } = await operator.gql<{ createOrganization: { deployments: { id: string }[] } }>(
      "mutation($name: String!) { createOrganization(name: $name) { deployments { id } } }",
      { name: `chaos ${randomBytes(3).toString("hex")}` },
    );
    const deploymentId = createOrganization.deployments[0].id;
    const db = new pg.Client({ connectionString: postgres!.url });
    await db.connect();
    await db.query(
      `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, status, updated_at)
       values ($1, $2, 'github', 'chaos', '583231', 'unused', '{}', 'ACTIVE', now())`,
      [`chaos_${randomBytes(6).toString("hex")}`, deploymentId],
    );
    await db.end();
    await operator.gql(
      "mutation($deploymentId: ID!, $input: ForwardingSettingsInput!) { saveForwardingSettings(deploymentId: $deploymentId, input: $input) { forwardingUrl } }",
      { deploymentId, input: { forwardingUrl: `${receiverUrl}/${kind}/${deploymentId}`, triggers: [{ connector: "github", trigger: "issue_opened" }] } },
    );
    return deploymentId;
  }

  const count = (counts: Map<string, number>, label: string) => counts.set(label, (counts.get(label) ?? 0) + 1);
  /** Streams signed webhooks at RATE/s into the deployments, alternating instances, until stopped. */
  function stream(deployments: string[]) {
    const accepted = new Map<string, Set<string>>(deployments.map((d) => [d, new Set()]));
    const statuses = new Map<string, Map<string, number>>(deployments.map((d) => [d, new Map()]));
    const sends: Promise<void>[] = [];
    let stopped = false;
    let n = 0;
    const loop = (async () => {
      const started = Date.now();
      while (!stopped) {
        const deployment = deployments[n % deployments.length];
        const instance = instances[n % 2];
        const mark = `chaos ${n} ${Date.now()} ${randomUUID()}`;
        const request = githubWebhook("issues", githubIssuesPayload("opened", { title: mark }), SECRET, { deliveryId: randomUUID() });
        sends.push(
          fetch(`${instance.url}/webhooks/${deployment}/github`, { method: "POST", headers: request.headers, body: request.body, signal: AbortSignal.timeout(15_000) })
            .then(async (response) => {
              await response.arrayBuffer();
              count(statuses.get(deployment)!, String(response.status));
              if (response.ok) accepted.get(deployment)!.add(mark);
            })
            .catch((error: Error) => {
              count(statuses.get(deployment)!, (error.cause as { code?: string } | undefined)?.code ?? error.name);
            }),
        );
        n++;
        await sleep(Math.max(0, started + (n * 1000) / RATE - Date.now()));
      }
    })();
    return async () => {
      stopped = true;
      await loop;
      await Promise.all(sends);
      return { accepted, statuses };
    };
  }

  function tally(deployment: string, accepted: Set<string>) {
    const seen = arrivals.get(deployment) ?? { ids: new Map<string, number>(), marks: new Set<string>(), latencies: [] };
    return {
      accepted: accepted.size,
      delivered: seen.ids.size,
      lost: [...accepted].filter((mark) => !seen.marks.has(mark)).length,
      duplicates: [...seen.ids.values()].reduce((sum, count) => sum + count - 1, 0),
    };
  }
  const percentile = (deployment: string, p: number) => {
    const sorted = [...(arrivals.get(deployment)?.latencies ?? [])].sort((x, y) => x - y);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  };
  const delivered = (deployment: string, accepted: Set<string>) => () => tally(deployment, accepted).lost === 0;
  const format = (statuses: Map<string, number>) => [...statuses].sort().map(([status, count]) => `${status}×${count}`).join(" ");
  const readiness = async (instance: ServiceProcess) => {
    const response = await fetch(`${instance.url}/readyz`, { signal: AbortSignal.timeout(2_000) });
    return { status: response.status, body: (await response.json()) as { redis?: string } };
  };

  /**
   * Streams, runs the fault, streams on, drains. `fault` resolves with the recovery figure, or with
   * `endedAt` when recovery is the backlog reaching the receiver (the hanging receiver answering again).
   */
  async function run(name: Scenario, kind: "ok" | "slow" | "hang", fault: () => Promise<{ recovered?: string; endedAt?: number; notes: string }>, neighbour = false) {
    console.log(`\n━━ ${name} (load average ${loadavg()[0].toFixed(1)}) ━━`);
    const deployments = [await deploymentForwardingTo(kind), ...(neighbour ? [await deploymentForwardingTo("ok")] : [])];
    const stop = stream(deployments);
    await sleep(BEFORE_MS);
    const outcome = await fault();
    await sleep(AFTER_MS);
    const { accepted, statuses } = await stop();
    const drained = await Promise.all(
      deployments.map((deployment) =>
        waitFor(`every webhook accepted for ${deployment} to reach the receiver`, delivered(deployment, accepted.get(deployment)!), DRAIN_MS).then(
          () => Date.now(),
          () => undefined,
        ),
      ),
    );
    const recovered =
      outcome.recovered ?? (drained[0] === undefined ? "no" : `yes, ${seconds(drained[0] - outcome.endedAt!)} s to deliver the backlog`);
    deployments.forEach((deployment, i) => {
      const figures = tally(deployment, accepted.get(deployment)!);
      const healthy = i > 0;
      rows.push({
        scenario: healthy ? `${name}: healthy neighbour` : name,
        ...figures,
        statuses: format(statuses.get(deployment)!),
        recovered: healthy ? (drained[i] === undefined ? "no" : "n/a") : recovered,
        notes: healthy ? `end-to-end p50 ${percentile(deployment, 50)} ms, p99 ${percentile(deployment, 99)} ms beside the hanging receiver` : outcome.notes,
      });
    });
  }

  const scenarios: Record<Scenario, () => Promise<void>> = {
    redis: () =>
      run("redis", "ok", async () => {
        console.log(`  stopping Redis for ${seconds(FAULT_MS)} s`);
        await redis!.stopNow();
        await sleep(FAULT_MS);
        const degraded = (await Promise.all(instances.map(readiness))).map((r) => `${r.status} redis ${r.body.redis}`).join(", ");
        await redis!.start();
        const ms = await waitFor("both instances to report redis ok on /readyz", async () =>
          (await Promise.all(instances.map(readiness))).every((r) => r.body.redis === "ok"),
        );
        return { recovered: `yes, ${seconds(ms)} s`, notes: `/readyz during: ${degraded}` };
      }),
    postgres: () =>
      run("postgres", "ok", async () => {
        console.log(`  stopping PostgreSQL (immediate) for ${seconds(FAULT_MS)} s`);
        await postgres!.stopNow();
        await sleep(FAULT_MS);
        const during = (await Promise.all(instances.map((i) => readiness(i).then((r) => r.status, (e: Error) => e.name)))).join(", ");
        await postgres!.start();
        const ms = await waitFor("both instances' /readyz to answer 200", async () => (await Promise.all(instances.map(readiness))).every((r) => r.status === 200));
        return { recovered: `yes, ${seconds(ms)} s`, notes: `/readyz during: ${during}` };
      }),
    hanging: () =>
      run(
        "hanging",
        "hang",
        async () => {
          // The hanging receiver hangs from the start; the fault's end is when it answers again.
          await sleep(FAULT_MS);
          hanging = false;
          const cut = held.length;
          for (const res of held.splice(0)) res.destroy();
          return { endedAt: Date.now(), notes: `${cut} attempts held open when the receiver answered again (cut then)` };
        },
        true,
      ),
    sigterm: () =>
      run("sigterm", "slow", async () => {
        console.log(`  SIGTERM to instance A (receiver takes ${seconds(SLOW_MS)} s)`);
        const started = Date.now();
        const code = await a.stop();
        const exitedAfter = Date.now() - started;
        await sleep(Math.max(0, FAULT_MS - exitedAfter));
        console.log("  starting instance A again: waiting for its /readyz to answer 200…");
        const restarting = Date.now();
        await a.start();
        return { recovered: `yes, ${seconds(Date.now() - restarting)} s`, notes: `A exited ${code} after ${seconds(exitedAfter)} s` };
      }),
    kill9: () =>
      run("kill9", "slow", async () => {
        console.log(`  kill -9 of instance A (receiver takes ${seconds(SLOW_MS)} s), down for ${seconds(FAULT_MS)} s`);
        await a.kill9();
        await sleep(FAULT_MS);
        console.log("  starting instance A again: waiting for its /readyz to answer 200…");
        const restarting = Date.now();
        await a.start();
        return { recovered: `yes, ${seconds(Date.now() - restarting)} s`, notes: "A's claimed deliveries wait for their lease" };
      }),
  };
  for (const name of only) await scenarios[name]();
} finally {
  load.after = loadavg()[0];
  await cleanUp();
}

console.log(`\nChaos run ${new Date().toISOString()}: ${RATE} webhooks/s over two instances, faults of ${seconds(FAULT_MS)} s, drain window ${seconds(DRAIN_MS)} s; load average ${load.before.toFixed(1)} → ${load.after.toFixed(1)} on ${availableParallelism()} cores\n`);
const header = ["scenario", "accepted", "delivered", "lost", "duplicates", "statuses", "recovered", "notes"] as const;
console.log(`| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`);
for (const row of rows) console.log(`| ${header.map((key) => String(row[key])).join(" | ")} |`);
process.exit(rows.some((row) => row.lost > 0) ? 1 : 0);
