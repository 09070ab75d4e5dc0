/**
 * The forwarding benchmark (issue 4): signed GitHub webhooks → Switchyard (verify, route, record
 * event + delivery, sign, POST) → a local receiver, against a raw baseline in the same run
 * (node:http receiving, one insert in pg, one POST out — baseline.ts).
 *
 *   npm run bench:forwarding                       # 200 events/s for 10 s, then max rate for 10 s
 *   npx tsx bench/forwarding/run.ts --rate 200 --duration 10 --connections 50
 *   npx tsx bench/forwarding/run.ts --cpu-prof /tmp/prof   # + a CPU profile of the service
 *   npx tsx bench/forwarding/run.ts --hanging-rate 0       # without the hanging-neighbour phase
 *   npx tsx bench/forwarding/run.ts --max-in-flight 64     # another DELIVERY_MAX_IN_FLIGHT_PER_URL
 *
 * Last phase, a hanging neighbour: the fixed rate again while another deployment's webhooks
 * (--hanging-rate per second) go to a receiver that never answers (each attempt waits for
 * DELIVERY_TIMEOUT_MS). Its end-to-end p50/p99 against the first phase's tell what isolation
 * (DELIVERY_MAX_IN_FLIGHT_PER_URL) leaves of the fault.
 *
 * Figures: accept latency (autocannon), end-to-end latency (sent → at the receiver; every body
 * carries its send time) and events/s accepted and delivered. Uses its own database
 * (sy_bench_<random>) on BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres).
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { benchDatabase } from "../database.ts";
import { githubIssuesPayload, githubWebhook } from "../../test/helpers/fakeProviders/github.ts";
import { serviceProcess } from "../../test/helpers/serviceProcess.ts";
import { createBenchOperator } from "../operator.ts";

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    rate: { type: "string", default: "200" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
    // Writes a V8 CPU profile of the service into this folder when it stops (cpuProfile.mjs).
    "cpu-prof": { type: "string" },
    // Keeps the database afterwards (its name is printed) to look at timings per delivery.
    "keep-db": { type: "boolean", default: false },
    "hanging-rate": { type: "string", default: "5" },
    // DELIVERY_MAX_IN_FLIGHT_PER_URL for the service (its default when unset).
    "max-in-flight": { type: "string" },
    out: { type: "string", default: join(dirname(fileURLToPath(import.meta.url)), "results.json") }, // raw figures of the last run
  },
});
const RATE = Number(args.rate);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const HANGING_RATE = Number(args["hanging-rate"]);
const SECRET = "bench-github-webhook-secret";

const benchDb = benchDatabase();

// The operator's server: records when each event arrived, by the send time carried in its title.
const arrivals = new Map<string, number[]>(); // path → end-to-end ms
const counts = new Map<string, number>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const sentAt = Number((body.data ?? body).issue.title);
    const path = req.url ?? "";
    (arrivals.get(path) ?? arrivals.set(path, []).get(path)!).push(Date.now() - sentAt);
    counts.set(path, (counts.get(path) ?? 0) + 1);
    res.writeHead(200).end("ok");
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;

// The hanging neighbour's receiver: reads each request and never answers.
let hangingReceived = 0;
const hanging = createServer((req) => {
  hangingReceived++;
  req.resume();
});
await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
const hangingUrl = `http://127.0.0.1:${(hanging.address() as { port: number }).port}/never`;

await benchDb.create();
const children: ChildProcess[] = [];
const service = await serviceProcess({
  DATABASE_URL: benchDb.url,
  NODE_ENV: "test",
  ENCRYPTION_KEY: randomBytes(32).toString("base64"),
  LOG_LEVEL: "warn",
  PASSWORD_HASH_COST: "10",
  CONNECTOR_GITHUB_WEBHOOK_SECRET: SECRET,
  ...(args["max-in-flight"] ? { DELIVERY_MAX_IN_FLIGHT_PER_URL: args["max-in-flight"] } : {}),
  ...(args["cpu-prof"] ? { NODE_OPTIONS: `--import ${join(here, "cpuProfile.mjs")}`, BENCH_CPU_PROF_DIR: args["cpu-prof"] } : {}),
}, { compiled: true });

try {
  await service.start();
  const operator = await createBenchOperator(service.url);
  const deploymentId = operator.development;
  // A connected GitHub account (id 583231, the sender of every payload); its token is never used here.
  const db = new pg.Client({ connectionString: benchDb.url });
  await db.connect();
  // The production deployment is the hanging neighbour of the last phase, with its own account.
  for (const deployment of [deploymentId, operator.production]) {
    await db.query(
      `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, status, updated_at)
       values ($1, $2, 'github', 'bench', '583231', 'unused', '{}', 'ACTIVE', now())`,
      [`bench_${randomBytes(6).toString("hex")}`, deployment],
    );
  }
  await db.end();
  for (const [deployment, forwardingUrl] of [[deploymentId, `${receiverUrl}/switchyard`], [operator.production, hangingUrl]]) {
    await operator.gql(
      "mutation($deploymentId: ID!, $input: ForwardingSettingsInput!) { saveForwardingSettings(deploymentId: $deploymentId, input: $input) { forwardingUrl } }",
      { deploymentId: deployment, input: { forwardingUrl, triggers: [{ connector: "github", trigger: "issue_opened" }] } },
    );
  }

  const baseline = fork(join(here, "baseline.ts"), [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, DATABASE_URL: benchDb.url, RECEIVER_URL: `${receiverUrl}/baseline` },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  children.push(baseline);
  const baselinePort = await new Promise<number>((resolve) => baseline.once("message", (m: { port: number }) => resolve(m.port)));

  const targets = [
    { name: "switchyard", url: `${service.url}/webhooks/${deploymentId}/github`, path: "/switchyard" },
    { name: "baseline", url: `http://127.0.0.1:${baselinePort}/`, path: "/baseline" },
  ];

  // The title carries the send time; its random fraction keeps bodies unique (the same GitHub body
  // twice within the replay window is answered 2xx and not recorded: replay protection, src/forwarding/inbound.ts).
  const signed = () => {
    const request = githubWebhook("issues", githubIssuesPayload("opened", { title: String(Date.now() + Math.random()) }), SECRET, { deliveryId: randomUUID() });
    return { headers: request.headers, body: request.body };
  };

  const pct = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  };

  async function drain(path: string, expected: number, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    while ((counts.get(path) ?? 0) < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }

  async function run(target: (typeof targets)[number], rate: number | undefined) {
    arrivals.set(target.path, []);
    counts.set(target.path, 0);
    const started = Date.now();
    const result = await autocannon({
      url: target.url,
      method: "POST",
      connections: rate ? Math.min(CONNECTIONS, 20) : CONNECTIONS,
      duration: DURATION,
      ...(rate ? { overallRate: rate } : {}),
      requests: [{ method: "POST", setupRequest: (request) => ({ ...request, ...signed() }) }],
    });
    const accepted = result["2xx"];
    await drain(target.path, accepted);
    const elapsed = (Date.now() - started) / 1000;
    const e2e = arrivals.get(target.path)!;
    return {
      target: target.name,
      mode: rate ? `${rate}/s` : "max",
      acceptedPerSecond: Math.round(accepted / DURATION),
      deliveredPerSecond: Math.round((counts.get(target.path) ?? 0) / elapsed),
      acceptP50: result.latency.p50,
      acceptP99: result.latency.p99,
      e2eP50: pct(e2e, 50),
      e2eP99: pct(e2e, 99),
      non2xx: result.non2xx,
      errors: result.errors,
      delivered: counts.get(target.path) ?? 0,
      accepted,
    };
  }

  /** Sends the hanging neighbour's webhooks at HANGING_RATE per second until stopped; returns how many were accepted. */
  function hangingNeighbour() {
    let accepted = 0;
    let stopped = false;
    const url = `${service.url}/webhooks/${operator.production}/github`;
    const sending = (async () => {
      while (!stopped) {
        const request = signed();
        const response = await fetch(url, { method: "POST", headers: request.headers, body: request.body }).catch(() => undefined);
        if (response?.ok) accepted++;
        await response?.arrayBuffer().catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 1000 / HANGING_RATE));
      }
    })();
    return async () => {
      stopped = true;
      await sending;
      return accepted;
    };
  }

  const results: Array<Awaited<ReturnType<typeof run>> & { neighbour?: string }> = [];
  for (const rate of [RATE, undefined]) for (const target of targets) results.push(await run(target, rate));
  let hangingPhase: { accepted: number; received: number } | undefined;
  if (HANGING_RATE > 0) {
    const stop = hangingNeighbour();
    // Let the neighbour's attempts pile up to its cap before measuring.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const result = await run(targets[0], RATE);
    hangingPhase = { accepted: await stop(), received: hangingReceived };
    results.push({ ...result, neighbour: `hanging, ${HANGING_RATE}/s` });
  }
  console.table(results);
  const at = (name: string, mode: string) => results.find((r) => r.target === name && r.mode === mode)!;
  const fixed = `${RATE}/s`;
  const summary = {
    date: new Date().toISOString(),
    load: loadavg(),
    rate: RATE,
    addedE2eP50Ms: at("switchyard", fixed).e2eP50 - at("baseline", fixed).e2eP50,
    addedE2eP99Ms: at("switchyard", fixed).e2eP99 - at("baseline", fixed).e2eP99,
    maxRateRatio: at("switchyard", "max").deliveredPerSecond / at("baseline", "max").deliveredPerSecond,
    ...(hangingPhase
      ? {
          // The healthy deployment at the fixed rate, beside a hanging one ÷ alone (same run).
          hangingNeighbourE2eP50Ratio: results.at(-1)!.e2eP50 / at("switchyard", fixed).e2eP50,
          hangingNeighbourE2eP99Ratio: results.at(-1)!.e2eP99 / at("switchyard", fixed).e2eP99,
          hangingNeighbourAccepted: hangingPhase.accepted,
          hangingReceiverRequestsOpened: hangingPhase.received,
        }
      : {}),
  };
  console.log(JSON.stringify(summary, null, 2));
  writeFileSync(args.out, `${JSON.stringify({ ...summary, results }, null, 2)}\n`);
} finally {
  for (const child of children) child.kill();
  // The neighbour's attempts fail at once, so the service stops without waiting them out.
  hanging.closeAllConnections();
  hanging.close();
  await service.stop().catch(() => {});
  receiver.close();
  if (args["keep-db"]) console.log(`kept database ${benchDb.name}`);
  else await benchDb.drop().catch(() => {});
}
