/**
 * The forwarding benchmark: signed GitHub webhooks → Switchyard (verify, route, record event +
 * delivery, sign, POST) → a local receiver, against two peers in the same run, on the same
 * PostgreSQL server:
 *   - graphile: the durable forwarder a Node team would write instead — node:http verifying GitHub's
 *     signature, graphile-worker's `addJob`, a task POSTing it, concurrency 10 (graphile.ts);
 *   - naive: a non-durable forwarder — one autocommit insert, answer, one POST, no retry (baseline.ts).
 * Switchyard is measured three times at the maximum rate: every event for one connected account
 * ("hot"), events spread over 10,000 connected accounts ("spread", inserted by SQL), and the spread
 * load split over two instances on the same database ("2-instances": their summed rate, and every
 * event exactly once — `duplicates` counts events received twice). The naive forwarder runs as one
 * process and as two on the same table ("naive-2-instances"): on a machine of two cores a second
 * process costs every forwarder its share of them, and that ratio is the one to read Switchyard's by.
 *
 *   npm run bench:forwarding                       # 200 events/s, then --rounds interleaved rounds at max rate
 *   npx tsx bench/forwarding/run.ts --rate 200 --duration 10 --connections 50
 *   npx tsx bench/forwarding/run.ts --cpu-prof /tmp/prof   # + CPU profiles of the service and the peers
 *   npx tsx bench/forwarding/run.ts --heap-prof /tmp/heap  # + what the service allocates (bench/heapProfileTop.ts)
 *   npx tsx bench/forwarding/run.ts --hanging-rate 0       # without the hanging-neighbour phase
 *   npx tsx bench/forwarding/run.ts --own-server           # on a PostgreSQL server of its own, as shipped
 *   npx tsx bench/forwarding/run.ts --own-server --statements   # + each round's costliest statements
 *   BENCH_EXPLAIN=/tmp/pglog npx tsx bench/forwarding/run.ts --own-server --statements
 *                                                  # + plans of statements over 6 ms, in that folder's server log
 *   npx tsx bench/forwarding/run.ts --max-in-flight 128    # another DELIVERY_MAX_IN_FLIGHT_PER_URL
 *   cp -r dist dist-b; <change, npm run build:server>; npx tsx bench/forwarding/run.ts --b-dist dist-b
 *                                                  # the build before a change beside the one after, in the same rounds
 *   BENCH_SETUP_SQL="drop index …; …" npx tsx bench/forwarding/run.ts   # statements run on the bench
 *                                                  # database before the load: an index's or a key's cost, without a migration
 *
 * Last phase, a hanging neighbour: the fixed rate again while another deployment's webhooks
 * (--hanging-rate per second) go to a receiver that never answers (each attempt waits for
 * DELIVERY_TIMEOUT_MS). Its end-to-end p50/p99 against the first phase's tell what isolation
 * (DELIVERY_MAX_IN_FLIGHT_PER_URL) leaves of the fault.
 *
 * Figures: accept latency (autocannon), end-to-end latency (sent → at the receiver; every body
 * carries its send time), events/s accepted and delivered, and per event the CPU of the forwarder
 * and of PostgreSQL and the pages PostgreSQL's backends wrote out themselves (with the server's
 * settings, which decide those: `server` in results.json). Each fixed-rate phase, and each target's
 * first max-rate round, follows --warmup seconds of the same load, unmeasured. The service runs
 * with `npm start`'s node flags.
 * Uses its own database (sy_bench_<random>) on BENCH_DATABASE_URL (default
 * postgresql://postgres@127.0.0.1:5432/postgres), or with --own-server on a PostgreSQL server of its
 * own with PostgreSQL's defaults (autovacuum and fsync on), started on a free port and removed after:
 * a machine's shared server may be tuned for tests (this one's CI server runs without autovacuum).
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { benchDatabase } from "../database.ts";
import { processCpuSeconds } from "../processCpu.ts";
import { githubIssuesPayload, githubWebhook } from "../../test/helpers/fakeProviders/github.ts";
import { ownPostgres } from "../../test/helpers/ownServers.ts";
import { COMPILED_ENTRY, serviceProcess } from "../../test/helpers/serviceProcess.ts";
import { createBenchOperator } from "../operator.ts";

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    rate: { type: "string", default: "200" },
    duration: { type: "string", default: "10" },
    // Seconds of the same load sent, unmeasured, before each target's fixed-rate phase and its first max-rate round.
    warmup: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    // Seconds a phase waits, after its load, for the events still owed to reach the receiver; then the rest count as lost.
    "drain-timeout": { type: "string", default: "60" },
    // Connected accounts the "spread" phase routes over (one per GitHub sender id).
    accounts: { type: "string", default: "10000" },
    connections: { type: "string", default: "50" },
    // Writes a V8 CPU profile of the service into this folder when it stops (profile.mjs).
    "cpu-prof": { type: "string" },
    // Writes a sampling heap profile of the service into this folder when it stops (profile.mjs).
    "heap-prof": { type: "string" },
    // Keeps the database afterwards (its name is printed) to look at timings per delivery.
    "keep-db": { type: "boolean", default: false },
    "hanging-rate": { type: "string", default: "5" },
    // LOG_LEVEL for the service: warn by default, so the figures leave out the one info line an attempt writes at the shipped default (info).
    "log-level": { type: "string", default: "warn" },
    // DELIVERY_MAX_IN_FLIGHT_PER_URL for the service (its default when unset).
    "max-in-flight": { type: "string" },
    // Runs only these targets (comma-separated names, e.g. "switchyard,naive") while investigating.
    only: { type: "string" },
    "own-server": { type: "boolean", default: false },
    statements: { type: "boolean", default: false },
    // The fixed-rate phase for every target, the spread and two-instance ones too: CPU an event at the
    // same offered load (--rate), where the maximum-rate rounds give each target a different load.
    "fixed-all": { type: "boolean", default: false },
    // Another build of the service, side by side with this one in the same run: a folder inside the
    // repository holding a copy of its dist/ (so its packages resolve), e.g. `cp -r dist dist-b` before
    // a change. Adds the targets switchyard-b and switchyard-b-spread, on the same database and
    // deployment (so only for changes that leave the schema alone).
    "b-dist": { type: "string" },
    // Node's or V8's flags for the service's processes, e.g. --service-flags=--perf-basic-prof-only-functions
    // (JavaScript names for \`perf record\`) or --trace-deopt; NODE_OPTIONS takes few V8 flags.
    "service-flags": { type: "string", default: "" },
    // Build B's own flags instead (--b-dist dist, the same build, to weigh a flag within one run).
    "b-service-flags": { type: "string" },
    out: { type: "string", default: join(dirname(fileURLToPath(import.meta.url)), "results.json") }, // raw figures of the last run
  },
});
const RATE = Number(args.rate);
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const CONNECTIONS = Number(args.connections);
const HANGING_RATE = Number(args["hanging-rate"]);
const ROUNDS = Number(args.rounds);
const ACCOUNTS = Number(args.accounts);
/** The first GitHub sender id of the spread phase's accounts (the hot account is 583231). */
const SPREAD_FIRST_ID = 1_000_000;
const SECRET = "bench-github-webhook-secret";

// --statements (with --own-server): each round of Switchyard prints its statements' PostgreSQL time
// (pg_stat_statements); with BENCH_EXPLAIN, the plans of statements over 6 ms go to that folder's server log.
const explainSettings = process.env.BENCH_EXPLAIN
  ? ["auto_explain.log_min_duration=6", "auto_explain.log_analyze=on", "auto_explain.log_buffers=on", "auto_explain.log_nested_statements=on", "logging_collector=on", `log_directory=${process.env.BENCH_EXPLAIN}`]
  : [];
const statementSettings = args.statements ? ["shared_preload_libraries=pg_stat_statements,auto_explain", "pg_stat_statements.track_planning=on", ...explainSettings] : [];
const ownServer = args["own-server"] ? await ownPostgres({ asShipped: true, settings: statementSettings }) : undefined;
if (ownServer) {
  await ownServer.start();
  process.env.BENCH_DATABASE_URL = ownServer.url;
}
const benchDb = benchDatabase();
const startFlags = (JSON.parse(readFileSync(join(here, "..", "..", "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start
  .split(" ")
  .filter((word) => word.startsWith("--"));

// The operator's server: records when each event arrived, by the send time carried in its title.
const arrivals = new Map<string, number[]>(); // path → end-to-end ms
const counts = new Map<string, number>();
// Events are told apart by their title (send time and a random fraction). path → titles received,
// and titles whose 2xx answer promised a forward: every 2xx of a peer, and a Switchyard answer
// saying `forwarded` (not a duplicate). Lost: promised and never received.
const received = new Map<string, Set<string>>();
const promised = new Map<string, Set<string>>();
const titles = (map: Map<string, Set<string>>, path: string) => map.get(path) ?? map.set(path, new Set()).get(path)!;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const title = String((body.data ?? body).issue.title);
    const sentAt = Number.parseInt(title, 10);
    const path = req.url ?? "";
    titles(received, path).add(title);
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
const server = await benchDb.settings();
if (server.autovacuum === "off") {
  console.warn("this PostgreSQL server runs without autovacuum: Switchyard vacuums its own tables once a minute; the peers' dead rows (updated and deleted jobs) are not reclaimed during the run");
}
const children: ChildProcess[] = [];
const serviceEnv = {
  DATABASE_URL: benchDb.url,
  LOG_LEVEL: args["log-level"],
  CONNECTOR_GITHUB_WEBHOOK_SECRET: SECRET,
  ...(args["max-in-flight"] ? { DELIVERY_MAX_IN_FLIGHT_PER_URL: args["max-in-flight"] } : {}),
  // Node's flags as `npm start` gives them (the young generation's size), and the profiler when asked.
  NODE_OPTIONS: [
    ...startFlags,
    ...(args["cpu-prof"] || args["heap-prof"] ? [`--import ${join(here, "profile.mjs")}`] : []),
  ].join(" "),
  ...(args["cpu-prof"] ? { BENCH_CPU_PROF_DIR: args["cpu-prof"] } : {}),
  ...(args["heap-prof"] ? { BENCH_HEAP_PROF_DIR: args["heap-prof"] } : {}),
};
const nodeFlags = args["service-flags"].split(" ").filter(Boolean);
const service = await serviceProcess(serviceEnv, { entry: COMPILED_ENTRY, nodeFlags });
// The same service again on the same database (same ENCRYPTION_KEY): the "two instances" target.
const wanted = (name: string) => !args.only || args.only.split(",").includes(name);
const second = wanted("switchyard-2-instances") ? await serviceProcess(serviceEnv, { entry: COMPILED_ENTRY, nodeFlags }) : undefined;
const buildBFlags = args["b-service-flags"] === undefined ? nodeFlags : args["b-service-flags"].split(" ").filter(Boolean);
const buildB = args["b-dist"] ? await serviceProcess(serviceEnv, { entry: join(args["b-dist"], "main.js"), nodeFlags: buildBFlags }) : undefined;

let db: pg.Client | undefined;
try {
  await service.start();
  await second?.start();
  await buildB?.start();
  const operator = await createBenchOperator(service.url);
  const deploymentId = operator.development;
  // A connected GitHub account (id 583231, the sender of every payload); its token is never used here.
  const client = new pg.Client({ connectionString: benchDb.url });
  db = client;
  await client.connect();
  if (args.statements) await client.query("create extension if not exists pg_stat_statements");
  // A query without parameters may hold several statements; a ";" inside a literal stays whole.
  if (process.env.BENCH_SETUP_SQL) await client.query(process.env.BENCH_SETUP_SQL);
  // The production deployment is the hanging neighbour of the last phase, with its own account.
  for (const deployment of [deploymentId, operator.production]) {
    await client.query(
      `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, status, updated_at)
       values ($1, $2, 'github', 'bench', '583231', 'unused', '{}', 'ACTIVE', now())`,
      [`bench_${randomBytes(6).toString("hex")}`, deployment],
    );
  }
  // The spread phase's accounts, cheaply: one insert of ACCOUNTS rows (GitHub routes by sender.id).
  await client.query(
    `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, status, updated_at)
     select 'bench_spread_' || i, $1, 'github', 'spread-' || i, ($2::int + i)::text, 'unused', '{}', 'ACTIVE', now()
     from generate_series(0, $3::int - 1) i`,
    [deploymentId, SPREAD_FIRST_ID, ACCOUNTS],
  );
  // A deployment that grew to 10,000 accounts has been analyzed by autovacuum; a bulk insert a moment
  // ago has not, and without statistics the planner takes every account of the connector for one row.
  await client.query("analyze connected_account");
  // Samples pg_stat_activity's wait events while a phase runs (what the accepting connections wait on).
  const waits = async (until: () => boolean) => {
    const tally = new Map<string, number>();
    let samples = 0;
    while (!until()) {
      const { rows } = await client.query<{ wait: string; n: number }>(
        `select coalesce(wait_event_type, 'CPU') || ': ' || coalesce(wait_event, 'running') as wait, count(*)::int as n
         from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle' group by 1`,
      );
      for (const row of rows) tally.set(row.wait, (tally.get(row.wait) ?? 0) + row.n);
      samples++;
      await new Promise((r) => setTimeout(r, 100));
    }
    return Object.fromEntries([...tally].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Math.round((v / Math.max(1, samples)) * 10) / 10]));
  };
  for (const [deployment, forwardingUrl] of [[deploymentId, `${receiverUrl}/switchyard`], [operator.production, hangingUrl]]) {
    await operator.gql(
      "mutation($deploymentId: ID!, $input: ForwardingSettingsInput!) { saveForwardingSettings(deploymentId: $deploymentId, input: $input) { forwardingUrl } }",
      { deploymentId: deployment, input: { forwardingUrl, triggers: [{ connector: "github", trigger: "issue_opened" }] } },
    );
  }

  /** A peer forwarder in a process of its own: where it listens, and its pid (for its CPU). */
  const peer = async (script: string, path: string, name = path.slice(1)) => {
    const child = fork(join(here, script), [], {
      // With --cpu-prof the peers are profiled too (<dir>/naive.cpuprofile, <dir>/graphile.cpuprofile): where
      // their CPU per event goes is what the service's is measured against.
      execArgv: ["--import", "tsx", ...(args["cpu-prof"] ? ["--import", join(here, "profile.mjs")] : [])],
      env: {
        ...process.env,
        DATABASE_URL: benchDb.url,
        RECEIVER_URL: `${receiverUrl}${path}`,
        GITHUB_WEBHOOK_SECRET: SECRET,
        ...(args["cpu-prof"] ? { BENCH_CPU_PROF_DIR: args["cpu-prof"], BENCH_CPU_PROF_NAME: name } : {}),
      },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    children.push(child);
    const port = await new Promise<number>((resolve) => child.once("message", (m: { port: number }) => resolve(m.port)));
    return { url: `http://127.0.0.1:${port}/`, pid: child.pid! };
  };
  const naive = await peer("baseline.ts", "/naive");
  // A second naive forwarder on the same table and receiver path: two instances of the simplest
  // forwarder on this machine, the measure for Switchyard's two-instance target (naive-2-instances).
  const secondNaive = wanted("naive-2-instances") ? await peer("baseline.ts", "/naive", "naive-2") : undefined;
  const graphile = await peer("graphile.ts", "/graphile");

  /**
   * What one phase drives: its URL (and `also`, a second one taking half the connections), the
   * receiver path its deliveries arrive at, whether its events spread over the accounts, and the
   * processes whose CPU it is measured by.
   */
  type Target = { name: string; url: string; also?: string; path: string; spread: boolean; pids: () => number[] };
  const switchyardUrl = `${service.url}/webhooks/${deploymentId}/github`;
  const servicePids = () => [service.pid()!];
  const allTargets: Target[] = [
    { name: "switchyard", url: switchyardUrl, path: "/switchyard", spread: false, pids: servicePids },
    { name: "switchyard-spread", url: switchyardUrl, path: "/switchyard", spread: true, pids: servicePids },
    // Half the connections to each instance; every event must still arrive exactly once.
    ...(second
      ? [{ name: "switchyard-2-instances", url: switchyardUrl, also: `${second.url}/webhooks/${deploymentId}/github`, path: "/switchyard", spread: true, pids: () => [service.pid()!, second.pid()!] }]
      : []),
    ...(buildB
      ? [
          { name: "switchyard-b", url: `${buildB.url}/webhooks/${deploymentId}/github`, path: "/switchyard", spread: false, pids: () => [buildB.pid()!] },
          { name: "switchyard-b-spread", url: `${buildB.url}/webhooks/${deploymentId}/github`, path: "/switchyard", spread: true, pids: () => [buildB.pid()!] },
        ]
      : []),
    { name: "graphile", url: graphile.url, path: "/graphile", spread: false, pids: () => [graphile.pid] },
    { name: "naive", url: naive.url, path: "/naive", spread: false, pids: () => [naive.pid] },
    ...(secondNaive ? [{ name: "naive-2-instances", url: naive.url, also: secondNaive.url, path: "/naive", spread: false, pids: () => [naive.pid, secondNaive.pid] }] : []),
  ];
  const targets = allTargets.filter((t) => wanted(t.name));

  // The title is the send time and a sequence number, so no two bodies are the same: the same GitHub
  // body twice within the replay window is answered 2xx and not recorded (replay protection,
  // src/forwarding/inbound.ts). A random fraction added to Date.now() kept only about three decimals
  // of it, so at 1,500 events/s about ten titles a round were the same: counted as duplicates where
  // the bodies differed (other senders, the naive forwarder) and answered as replays where they did not.
  let sent = 0;
  const signed = (spread = false) => {
    const sender = spread ? { id: SPREAD_FIRST_ID + (sent % ACCOUNTS), login: "spread" } : undefined;
    const title = `${Date.now()} #${sent++}`;
    const request = githubWebhook("issues", githubIssuesPayload("opened", { title, sender }), SECRET, { deliveryId: randomUUID() });
    return { headers: request.headers, body: request.body, title };
  };

  // CPU seconds a set of processes used (utime + stime from /proc/<pid>/stat; a process gone counts 0):
  // the cost per event, which the machine's load does not change the way it changes rates.
  const cpuSeconds = (pids: number[]) =>
    pids.reduce((sum, pid) => {
      try {
        const { user, system } = processCpuSeconds(pid);
        return sum + user + system;
      } catch {
        return sum;
      }
    }, 0);
  // Server-wide (the bench database is the only one written during a run): pages backends wrote out,
  // checkpoints and WAL bytes; and the bench database's transactions. A backend reports its
  // transactions at most once a second, so this waits that out before reading them.
  const serverCounters = async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const { rows } = await client.query<{ backend: string; checkpoints: string; wal: string; transactions: string }>(
      `select buffers_backend as backend, checkpoints_timed + checkpoints_req as checkpoints,
              pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as wal,
              (select xact_commit + xact_rollback from pg_stat_database where datname = current_database()) as transactions
       from pg_stat_bgwriter`,
    );
    return rows.map((row) => ({ backend: Number(row.backend), checkpoints: Number(row.checkpoints), wal: Number(row.wal), transactions: Number(row.transactions) }))[0];
  };
  const [{ pid: clientBackend }] = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows;
  /** VACUUM of the bench database; returns the CPU seconds this client's backend spent on it. */
  const settle = async () => {
    const before = cpuSeconds([clientBackend]);
    await client.query("vacuum");
    return cpuSeconds([clientBackend]) - before;
  };
  const backends = async () =>
    (await client.query<{ pid: number }>("select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()")).rows.map((r) => r.pid);

  const pct = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  };

  const missing = (path: string) => [...titles(promised, path)].filter((title) => !titles(received, path).has(title)).length;

  /** Waits (at most --drain-timeout seconds) until every event whose answer promised a forward is at the receiver. */
  async function drain(path: string) {
    const deadline = Date.now() + Number(args["drain-timeout"]) * 1000;
    while (missing(path) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }

  /** Whether an answer promised to forward its event: a peer's 2xx does; Switchyard's says so (`forwarded`). */
  function promisesForward(target: Target, status: number, body: string): boolean {
    if (status < 200 || status > 299) return false;
    if (!target.name.startsWith("switchyard")) return true;
    try {
      return ((JSON.parse(body) as { forwarded?: number }).forwarded ?? 0) > 0;
    } catch {
      return false;
    }
  }

  /** The load of one phase: autocannon on each of the target's URLs at once. */
  const loadOf = (target: Target, rate: number | undefined, duration: number) => {
    const request = () => ({
      method: "POST" as const,
      setupRequest: (built: object, context: { title?: string }) => {
        const { title, ...signedRequest } = signed(target.spread);
        context.title = title;
        return { ...built, ...signedRequest };
      },
      // The answer's request is the one this context was set for (one request in flight per connection).
      onResponse: (status: number, body: string, context: { title?: string }) => {
        if (context.title && promisesForward(target, status, body)) titles(promised, target.path).add(context.title);
      },
    });
    const urls = target.also ? [target.url, target.also] : [target.url];
    const connections = rate ? Math.min(CONNECTIONS, 20) : CONNECTIONS;
    return Promise.all(
      urls.map((url) =>
        autocannon({
          url,
          method: "POST",
          connections: Math.ceil(connections / urls.length),
          duration,
          ...(rate ? { overallRate: rate / urls.length } : {}),
          requests: [request()],
          // Each connection its own request object: autocannon keeps the built request on it, and with
          // one object shared, every connection's first request was the last one built (the same
          // body and delivery id 50 times, answered as duplicates).
          setupClient: (client: { setRequests(requests: unknown[]): void }) => client.setRequests([request()]),
        } as autocannon.Options),
      ),
    );
  };

  async function run(target: Target, rate: number | undefined, round = 0) {
    // Each phase starts with the dead rows of the phases before it vacuumed, as pgbench vacuums
    // before a run. Otherwise autovacuum fell on whichever target came next: in a run of two targets,
    // the one that ends round 3 met the vacuum of the whole run in every run (docs/benchmarks.md).
    // Before the warm-up: after a vacuum PostgreSQL plans the statements over the tables it changed
    // again (the accepting statement 2–15 ms a plan in these runs), in the warm-up rather than the phase.
    await settle();
    if (WARMUP > 0 && (rate || round === 1)) {
      // Each phase measures the steady state: a fixed-rate phase, and each target's first max-rate
      // round, come after the same load unmeasured, so neither is the first seconds' JIT compilation
      // and cold caches. At 200/s the service never met its busy path's batches, and its first max
      // round paid for optimizing them on the same two cores (Switchyard's round 1 at 0.53 ms of CPU an
      // event against 0.32–0.33 in rounds 2 and 3, the naive forwarder's within 0.05: docs/benchmarks.md).
      counts.set(target.path, 0);
      const warm = await loadOf(target, rate, WARMUP);
      await drain(target.path);
    }
    arrivals.set(target.path, []);
    counts.set(target.path, 0);
    promised.delete(target.path);
    received.delete(target.path);
    const writesBefore = await serverCounters();
    const load = loadavg()[0];
    const started = Date.now();
    let done = false;
    const sampling = !rate && target.name.startsWith("switchyard") ? waits(() => done) : undefined;
    // Every round of Switchyard's, the fixed rate's too: a statement's cost at a batch of one or two.
    const statementsOf = args.statements && target.name.startsWith("switchyard");
    if (statementsOf) await client.query("select pg_stat_statements_reset()");
    const pgBefore = await backends();
    const cpuBefore = { own: cpuSeconds(target.pids()), pg: new Map(pgBefore.map((pid) => [pid, cpuSeconds([pid])])), bench: process.cpuUsage() };
    const loads = await loadOf(target, rate, DURATION);
    const result = loads[0];
    done = true;
    const accepted = loads.reduce((sum, each) => sum + each["2xx"], 0);
    await drain(target.path);
    const elapsed = (Date.now() - started) / 1000;
    const pgAfter = await backends();
    const ownCpu = cpuSeconds(target.pids()) - cpuBefore.own;
    const benchCpu = process.cpuUsage(cpuBefore.bench);
    const pgCpu = pgAfter.reduce((sum, pid) => sum + cpuSeconds([pid]) - (cpuBefore.pg.get(pid) ?? 0), 0);
    const writesAfter = await serverCounters();
    const statements = statementsOf ? await statementTimes() : undefined;
    // What the phase left to vacuum, paid here rather than by the next phase: its own cost, shown apart.
    const vacuumCpu = await settle();
    const perEvent = (seconds: number) => Math.round((seconds * 1000 * 100) / Math.max(1, counts.get(target.path) ?? 0)) / 100;
    const e2e = arrivals.get(target.path)!;
    const distinct = titles(received, target.path).size;
    const lost = missing(target.path);
    if (lost > 0 && target.name.startsWith("switchyard")) await explainMissing(target.path);
    return {
      target: target.name,
      mode: rate ? `${rate}/s` : `max #${round}`,
      load1: Math.round(load * 100) / 100,
      acceptedPerSecond: Math.round(accepted / DURATION),
      deliveredPerSecond: Math.round((counts.get(target.path) ?? 0) / elapsed),
      acceptP50: result.latency.p50,
      acceptP99: result.latency.p99,
      e2eP50: pct(e2e, 50),
      e2eP99: pct(e2e, 99),
      non2xx: loads.reduce((sum, each) => sum + each.non2xx, 0),
      errors: loads.reduce((sum, each) => sum + each.errors, 0),
      delivered: counts.get(target.path) ?? 0,
      accepted,
      // Promised a forward by a 2xx answer, and never at the receiver.
      lost,
      // Delivered more than once (at-least-once allows it after a crash; none is expected here).
      duplicates: Math.max(0, (counts.get(target.path) ?? 0) - distinct),
      // CPU ms per delivered event: the forwarder's process, and the bench database's PostgreSQL backends.
      cpuMsPerEvent: perEvent(ownCpu),
      // ... and this process's: the load (autocannon, each request signed) and the receiver, one thread.
      benchCpuMsPerEvent: perEvent((benchCpu.user + benchCpu.system) / 1e6),
      // How much of one core this process used over the round (near 1: the load itself is the limit).
      benchCoreShare: Math.round((benchCpu.user + benchCpu.system) / 1e4 / elapsed) / 100,
      pgCpuMsPerEvent: perEvent(pgCpu),
      // The vacuum of the rows the phase left dead (its backend's CPU), after the phase.
      vacuumCpuMsPerEvent: perEvent(vacuumCpu),
      // 8 kB pages the backends wrote out themselves to free a buffer (shared_buffers full of dirty
      // pages: the run's tables outgrew it), per delivered event; and checkpoints begun meanwhile.
      backendWritesPerEvent: Math.round(((writesAfter.backend - writesBefore.backend) / Math.max(1, counts.get(target.path) ?? 0)) * 100) / 100,
      checkpoints: writesAfter.checkpoints - writesBefore.checkpoints,
      // WAL written and transactions committed, per delivered event: what the event path costs PostgreSQL.
      walBytesPerEvent: Math.round((writesAfter.wal - writesBefore.wal) / Math.max(1, counts.get(target.path) ?? 0)),
      transactionsPerEvent: Math.round(((writesAfter.transactions - writesBefore.transactions) / Math.max(1, counts.get(target.path) ?? 0)) * 100) / 100,
      waits: sampling ? await sampling : undefined,
      statements,
    };
  }

  /** The statements PostgreSQL spent most time on since the reset, per delivered event (--statements). */
  async function statementTimes() {
    // plans: how often PostgreSQL planned it (track_planning); 0 for a prepared statement running its cached generic plan.
    const { rows } = await client.query<{ query: string; calls: string; ms: number; each: number; pages: number; plans: string; plan_ms: number }>(
      `select left(regexp_replace(query, '\\s+', ' ', 'g'), 70) as query, calls::text, round(total_exec_time)::float8 as ms,
              round((total_exec_time / calls)::numeric, 3)::float8 as each, round((shared_blks_hit + shared_blks_read)::numeric / calls)::float8 as pages, plans, round(total_plan_time::numeric, 1)::float8 as plan_ms
       from pg_stat_statements where calls > 0 and dbid = (select oid from pg_database where datname = current_database())
       order by total_exec_time desc limit 6`,
    );
    return rows;
  }

  /** Where the deliveries not yet at the receiver stand, when a round ended with some missing. */
  async function explainMissing(path: string) {
    const { rows } = await client.query(
      `select d.status, d.attempts, d.claim_count, d.last_error, d.last_status_code,
              d.next_attempt_at is not null as due, d.locked_until is not null as leased, count(*)::int as deliveries
       from delivery d where d.url like $1 and d.status <> 'SUCCEEDED'
       group by 1, 2, 3, 4, 5, 6, 7 order by deliveries desc limit 20`,
      [`%${path}`],
    );
    console.warn(`deliveries to ${path} not succeeded after the drain:`, JSON.stringify(rows));
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
  // The fixed rate for one instance's targets; the spread and two-instance ones only with --fixed-all.
  for (const target of targets.filter((t) => args["fixed-all"] || (!t.spread && !t.also))) results.push(await run(target, RATE));
  // Interleaved rounds at the maximum rate, every other one in reverse order, so a neighbour's load
  // or a drift of the machine's speed falls on every target alike (this machine's rates moved by a
  // third between windows a minute apart: docs/benchmarks.md).
  for (let round = 1; round <= ROUNDS; round++) {
    for (const target of round % 2 === 1 ? targets : [...targets].reverse()) results.push(await run(target, undefined, round));
  }
  let hangingPhase: { accepted: number; received: number } | undefined;
  if (HANGING_RATE > 0) {
    const stop = hangingNeighbour();
    // Let the neighbour's attempts pile up to its cap before measuring.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const result = await run(targets[0], RATE);
    hangingPhase = { accepted: await stop(), received: hangingReceived };
    results.push({ ...result, neighbour: `hanging, ${HANGING_RATE}/s` });
  }
  console.table(results.map(({ waits: _, statements: __, ...row }) => row));
  for (const row of results.filter((r) => r.waits)) console.log(`${row.target} ${row.mode} pg_stat_activity (mean sessions):`, JSON.stringify(row.waits));
  for (const row of results.filter((r) => r.statements)) {
    console.log(`${row.target} ${row.mode} statements (total ms, calls, ms each, pages each, plans, planning ms):`);
    for (const s of row.statements!) {
      console.log(`  ${String(s.ms).padStart(7)} ${s.calls.padStart(7)} ${String(s.each).padStart(8)} ${String(s.pages).padStart(6)} ${s.plans.padStart(6)} ${String(s.plan_ms).padStart(7)}  ${s.query}`);
    }
  }
  // A target left out by --only reads as NaN (null in the summary).
  const notRun = { e2eP50: NaN, e2eP99: NaN, deliveredPerSecond: NaN };
  const at = (name: string, mode: string) => results.find((r) => r.target === name && r.mode === mode) ?? notRun;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  // The median over rounds of the per-round ratio (each round's targets ran back to back).
  const ratio = (a: string, b: string) =>
    Math.round(median(Array.from({ length: ROUNDS }, (_, i) => at(a, `max #${i + 1}`).deliveredPerSecond / at(b, `max #${i + 1}`).deliveredPerSecond)) * 100) / 100;
  const fixed = `${RATE}/s`;
  const summary = {
    date: new Date().toISOString(),
    load: loadavg(),
    server,
    rate: RATE,
    addedE2eP50Ms: at("switchyard", fixed).e2eP50 - at("naive", fixed).e2eP50,
    addedE2eP99Ms: at("switchyard", fixed).e2eP99 - at("naive", fixed).e2eP99,
    e2eP99Ms: { switchyard: at("switchyard", fixed).e2eP99, graphile: at("graphile", fixed).e2eP99, naive: at("naive", fixed).e2eP99 },
    maxRateRatio: ratio("switchyard", "naive"),
    maxRateVsGraphile: ratio("switchyard", "graphile"),
    spreadMaxRateRatio: ratio("switchyard-spread", "naive"),
    spreadMaxRateVsGraphile: ratio("switchyard-spread", "graphile"),
    // Two instances on one database ÷ one, both spreading over the 10,000 accounts.
    ...(second ? { twoInstancesVsOne: ratio("switchyard-2-instances", "switchyard-spread") } : {}),
    // The same for the naive forwarder: what a second process adds on this machine's cores at all.
    ...(secondNaive ? { naiveTwoInstancesVsOne: ratio("naive-2-instances", "naive") } : {}),
    // --b-dist: the other build ÷ this one, hot and over 10,000 accounts (same rounds).
    ...(buildB ? { buildBVsThis: ratio("switchyard-b", "switchyard"), buildBSpreadVsThis: ratio("switchyard-b-spread", "switchyard-spread") } : {}),
    duplicates: Object.fromEntries(targets.map((t) => [t.name, results.filter((r) => r.target === t.name).reduce((n, r) => n + r.duplicates, 0)])),
    lost: Object.fromEntries(targets.map((t) => [t.name, results.filter((r) => r.target === t.name).reduce((n, r) => n + r.lost, 0)])),
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
  await db?.end().catch(() => {});
  for (const child of children) child.kill();
  // The neighbour's attempts fail at once, so the service stops without waiting them out.
  hanging.closeAllConnections();
  hanging.close();
  await service.stop().catch(() => {});
  await second?.stop().catch(() => {});
  await buildB?.stop().catch(() => {});
  receiver.close();
  if (args["keep-db"] && !ownServer) console.log(`kept database ${benchDb.name}`);
  else await benchDb.drop().catch(() => {});
  await ownServer?.remove();
}
