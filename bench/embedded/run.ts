/**
 * Forwarding on the embedded database: signed GitHub webhooks → `node dist/main.js` on its own
 * DATA_DIR (PGlite in the process, no PostgreSQL server) → a local receiver, at the maximum rate
 * 50 connections give, for one connected account. bench/forwarding measures the service on
 * PostgreSQL against its peers; this one measures what the embedded database costs the same path,
 * and, with --b-dist, one build beside another in alternating rounds (a change to the embedded
 * accepting path measured before and after in one run).
 *
 *   npx tsx bench/embedded/run.ts                        # dist/, three rounds of 10 s
 *   cp -r dist dist-b; <change, npm run build:server>; npx tsx bench/embedded/run.ts --b-dist dist-b
 *   npx tsx bench/embedded/run.ts --rounds 1 --duration 3 --out /tmp/embedded.json
 *
 * Figures a round: events/s accepted (2xx) and delivered, accept p50/p99 (autocannon), the
 * service's CPU an event, and lost: events answered `forwarded` that never reached the receiver
 * within --drain-timeout seconds. The connected account is written into the data folder while
 * the service is stopped (the embedded database is one process's), as bench/forwarding inserts
 * its accounts by SQL.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { NodeFS } from "@electric-sql/pglite/nodefs";
import autocannon from "autocannon";
import { PGLITE_SETTINGS } from "../../src/db/database.ts";
import { githubIssuesPayload, githubWebhook } from "../../test/helpers/fakeProviders/github.ts";
import { COMPILED_ENTRY, requireBuild, type ServiceProcess, serviceProcess } from "../../test/helpers/serviceProcess.ts";
import { createBenchOperator } from "../operator.ts";
import { processCpuSeconds } from "../processCpu.ts";

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
    // Seconds of the same load, unmeasured, before each build's first round (JIT, caches).
    warmup: { type: "string", default: "3" },
    "drain-timeout": { type: "string", default: "60" },
    // Writes a V8 CPU profile of each build's service into this folder when it stops (../forwarding/profile.mjs).
    "cpu-prof": { type: "string" },
    // Another build (a copy of dist/ made before a change) measured beside dist/ in the same rounds.
    "b-dist": { type: "string" },
    out: { type: "string", default: join(dirname(fileURLToPath(import.meta.url)), "results.json") },
  },
});
const DURATION = Number(args.duration);
const here = dirname(fileURLToPath(import.meta.url));
const SECRET = "bench-github-webhook-secret";
/** The sender of githubIssuesPayload's events: the connected account's GitHub user id. */
const SENDER_ID = "583231";

requireBuild();

// The operator's server: counts each build's deliveries, by the title every body carries.
const received = new Map<string, Set<string>>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const path = req.url ?? "";
    (received.get(path) ?? received.set(path, new Set()).get(path)!).add(String(body.data.issue.title));
    res.writeHead(200).end("ok");
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;

interface Build {
  name: string;
  service: ServiceProcess;
  dataDir: string;
  webhookUrl: string;
  path: string;
}

/** A build on a data folder of its own: an operator signed up, forwarding saved, the account written in while stopped. */
async function startBuild(name: string, entry: string): Promise<Build> {
  const dataDir = mkdtempSync(join(tmpdir(), "sy-bench-embedded-"));
  const profile: Record<string, string> = args["cpu-prof"] ? { NODE_OPTIONS: `--import ${join(here, "..", "forwarding", "profile.mjs")}`, BENCH_CPU_PROF_DIR: args["cpu-prof"] } : {};
  const service = await serviceProcess({ DATA_DIR: dataDir, CONNECTOR_GITHUB_WEBHOOK_SECRET: SECRET, ...profile }, { entry });
  await service.start();
  const operator = await createBenchOperator(service.url);
  const path = `/${name}`;
  await operator.gql(
    "mutation($d: ID!, $i: ForwardingSettingsInput!) { saveForwardingSettings(deploymentId: $d, input: $i) { forwardingUrl } }",
    { d: operator.development, i: { forwardingUrl: `${receiverUrl}${path}`, triggers: [{ connector: "github", trigger: "issue_opened" }] } },
  );
  await service.stop();
  const pglite = new PGlite({ fs: new NodeFS(join(dataDir, "pgdata")), startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] });
  await pglite.query(
    `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, status, updated_at)
     values ($1, $2, 'github', 'bench', $3, 'unused', '{}', 'ACTIVE', now())`,
    [`bench_${randomBytes(6).toString("hex")}`, operator.development, SENDER_ID],
  );
  await pglite.close();
  await service.start();
  return { name, service, dataDir, webhookUrl: `${service.url}/webhooks/${operator.development}/github`, path };
}

let sent = 0;
/** Accepted with `forwarded`: promised to the receiver. */
const promised = new Map<string, Set<string>>();

function load(build: Build, seconds: number) {
  const promises = promised.get(build.path) ?? promised.set(build.path, new Set()).get(build.path)!;
  const request = () => ({
    method: "POST" as const,
    setupRequest: (built: object, context: { title?: string }) => {
      const title = `${Date.now()} #${sent++}`;
      context.title = title;
      return { ...built, ...githubWebhook("issues", githubIssuesPayload("opened", { title }), SECRET, { deliveryId: randomUUID() }) };
    },
    onResponse: (status: number, body: string, context: { title?: string }) => {
      if (status === 200 && context.title && ((JSON.parse(body) as { forwarded?: number }).forwarded ?? 0) > 0) promises.add(context.title);
    },
  });
  return autocannon({
    url: build.webhookUrl,
    method: "POST",
    connections: Number(args.connections),
    duration: seconds,
    requests: [request()],
    setupClient: (client: { setRequests(requests: unknown[]): void }) => client.setRequests([request()]),
  } as autocannon.Options);
}

const missing = (build: Build) => [...(promised.get(build.path) ?? [])].filter((title) => !received.get(build.path)?.has(title)).length;

/** Waits, at most --drain-timeout seconds, until every event promised to the receiver is there. */
async function drain(build: Build) {
  const until = Date.now() + Number(args["drain-timeout"]) * 1000;
  while (missing(build) > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
}

async function round(build: Build, number: number) {
  if (number === 1 && Number(args.warmup) > 0) await load(build, Number(args.warmup));
  await drain(build);
  promised.delete(build.path);
  received.delete(build.path);
  const load1 = loadavg()[0];
  const pid = build.service.pid()!;
  const cpu = () => {
    const { user, system } = processCpuSeconds(pid);
    return user + system;
  };
  const cpuBefore = cpu();
  const started = Date.now();
  const result = await load(build, DURATION);
  await drain(build);
  const elapsed = (Date.now() - started) / 1000;
  const delivered = received.get(build.path)?.size ?? 0;
  return {
    build: build.name,
    round: number,
    load1: Math.round(load1 * 100) / 100,
    acceptedPerSecond: Math.round(result["2xx"] / DURATION),
    deliveredPerSecond: Math.round(delivered / elapsed),
    acceptP50: result.latency.p50,
    acceptP99: result.latency.p99,
    cpuMsPerEvent: Math.round(((cpu() - cpuBefore) * 1000 * 100) / Math.max(1, delivered)) / 100,
    non2xx: result.non2xx,
    errors: result.errors,
    lost: missing(build),
  };
}

const builds: Build[] = [];
try {
  builds.push(await startBuild("a", COMPILED_ENTRY));
  if (args["b-dist"]) builds.push(await startBuild("b", join(args["b-dist"], "main.js")));
  const results: Awaited<ReturnType<typeof round>>[] = [];
  for (let number = 1; number <= Number(args.rounds); number++) {
    // Alternating which goes first, so neither always meets the other's leftover writeback.
    for (const build of number % 2 ? builds : [...builds].reverse()) {
      const result = await round(build, number);
      console.log(JSON.stringify(result));
      results.push(result);
    }
  }
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
  const summary = Object.fromEntries(
    builds.map((build) => {
      const own = results.filter((result) => result.build === build.name);
      return [build.name, { deliveredPerSecond: median(own.map((r) => r.deliveredPerSecond)), cpuMsPerEvent: median(own.map((r) => r.cpuMsPerEvent)), lost: own.reduce((sum, r) => sum + r.lost, 0) }];
    }),
  );
  console.log(JSON.stringify(summary));
  writeFileSync(args.out, `${JSON.stringify({ date: new Date().toISOString(), duration: DURATION, connections: Number(args.connections), summary, results }, null, 2)}\n`);
  if (results.some((result) => result.lost > 0 || result.errors > 0)) process.exitCode = 1;
} finally {
  for (const build of builds) {
    await build.service.stop();
    rmSync(build.dataDir, { recursive: true, force: true });
  }
  receiver.close();
}
