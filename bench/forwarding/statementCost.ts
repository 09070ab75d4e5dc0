/**
 * What the accepting statement costs PostgreSQL, beside the naive forwarder's autocommit insert of the
 * same payload, timed alone: `enqueue`'s statement (src/delivery/queue/enqueue.ts) called back to back
 * on one connection with the recording pool's settings, one batch of `--events` GitHub issues events
 * a call, each its own transaction; then the insert of one such event into a table with one index.
 * Prints, a call, the backend's CPU (user and system, from /proc: PostgreSQL must run on this machine)
 * and the wall time. Two instances record the same events in about twice as many statements
 * (docs/benchmarks.md): this is the price of each.
 *
 *   npx tsx bench/forwarding/run.ts --only switchyard --rounds 1 --duration 3 --hanging-rate 0 --keep-db
 *     # … prints "kept database sy_bench_<random>": a deployment forwarding GitHub's issue_opened
 *   npx tsx bench/forwarding/statementCost.ts --database postgresql://postgres@127.0.0.1:5432/sy_bench_<random>
 *   npx tsx bench/forwarding/statementCost.ts --database … --events 12 --calls 500
 *
 * The deliveries it records stay PENDING in that database; drop it afterwards.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import pg from "pg";
import { findConnector } from "../../src/connectors/registry.ts";
import { asOptions, connectionSettings, RECORDING_PLANS } from "../../src/db/database.ts";
import { sqlOverPool } from "../../src/db/sql.ts";
import { enqueue, type EventToEnqueue } from "../../src/delivery/queue/enqueue.ts";
import { githubIssuesPayload, githubWebhook } from "../../test/helpers/fakeProviders/github.ts";
import { processCpuSeconds } from "../processCpu.ts";

const { values: args } = parseArgs({
  options: {
    database: { type: "string" },
    events: { type: "string", default: "1" },
    calls: { type: "string", default: "1000" },
    rounds: { type: "string", default: "3" },
  },
});
if (!args.database) {
  console.error("usage: npx tsx bench/forwarding/statementCost.ts --database <a database kept by bench/forwarding/run.ts --keep-db> [--events 1] [--calls 1000] [--rounds 3]");
  process.exit(2);
}
const EVENTS = Number(args.events);
const CALLS = Number(args.calls);

// The recording pool's session settings, on one connection so that its backend is the one measured.
const pool = new pg.Pool({ connectionString: args.database, max: 1, options: connectionSettings + asOptions(RECORDING_PLANS) });
const sql = sqlOverPool(pool);

// The event as the service stores it: the forwarding benchmark's request, parsed by the GitHub connector.
const github = findConnector("github");
if (!github?.inbound) throw new Error("the GitHub connector takes no webhooks");
const request = githubWebhook("issues", githubIssuesPayload("opened", { title: "statement cost", sender: { login: "octocat", id: 583231 } }), "secret");
const parsed = github.inbound.parse({ headers: request.headers, rawBody: Buffer.from(request.body), method: "POST", query: new URLSearchParams(), url: "http://127.0.0.1/" });
if (!("events" in parsed) || parsed.events.length !== 1) throw new Error("the benchmark's request did not parse to one event");
const { trigger } = parsed.events[0];
const payloadJson = JSON.stringify(parsed.events[0].data);
// GitHub signs no timestamp: each request claims its body's digest for this window (the replay check).
const windowSeconds = github.inbound.replayWindowSeconds;
if (!windowSeconds) throw new Error("the GitHub connector declares no replay window");

const [target] = await sql.query<{ deployment_id: string; external_id: string }>(
  `select a.deployment_id, a.external_id from connected_account a
   join forwarding_trigger t on t.deployment_id = a.deployment_id and t.connector = a.connector
   join forwarding_settings s on s.deployment_id = a.deployment_id and s.forwarding_url is not null
   where a.connector = 'github' and a.status = 'ACTIVE' and t.trigger = $1 limit 1`,
  [trigger],
);
if (!target) throw new Error(`no deployment in this database forwards GitHub's ${trigger} for an active account: run the forwarding benchmark with --keep-db first`);

const event = (): EventToEnqueue => ({
  eventId: randomUUID(),
  deliveryId: randomUUID(),
  deploymentId: target.deployment_id,
  connectedAccountId: null,
  connector: "github",
  trigger,
  account: "",
  payloadJson,
  resource: null,
  occurredAt: new Date(),
  dedupeKey: randomUUID(),
  forwardUnlisted: false,
  routeBy: [target.external_id],
  routeByMetadata: null,
  bodyClaim: { digest: randomBytes(32).toString("hex"), key: randomUUID(), windowSeconds },
});

const [{ pid }] = await sql.query<{ pid: number }>("select pg_backend_pid() as pid");

await sql.query("create table if not exists statement_cost_baseline (id text primary key, payload json not null, received_at timestamp not null default now())");
const cases: Record<string, () => Promise<unknown>> = {
  [`accepting statement, ${EVENTS} event${EVENTS === 1 ? "" : "s"}`]: () => enqueue(sql, Array.from({ length: EVENTS }, event), new Date()),
  "autocommit insert, 1 event": () => sql.query("insert into statement_cost_baseline (id, payload) values ($1, $2)", [randomUUID(), payloadJson], "statement_cost_baseline"),
};
try {
  const figures: Record<string, number[][]> = {};
  for (let round = 1; round <= Number(args.rounds); round++) {
    for (const [name, call] of Object.entries(cases)) {
      for (let i = 0; i < 50; i++) await call(); // planned and cached before it is timed
      const before = processCpuSeconds(pid);
      const started = performance.now();
      for (let i = 0; i < CALLS; i++) await call();
      const wall = ((performance.now() - started) * 1000) / CALLS;
      const after = processCpuSeconds(pid);
      const user = ((after.user - before.user) * 1e6) / CALLS;
      const system = ((after.system - before.system) * 1e6) / CALLS;
      (figures[name] ??= []).push([user + system, user, system, wall]);
      console.log(`round ${round}  ${name.padEnd(34)} backend CPU ${(user + system).toFixed(0).padStart(5)} µs a call (user ${user.toFixed(0)}, system ${system.toFixed(0)}), wall ${wall.toFixed(0)} µs`);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log("\nmedians of the rounds");
  for (const [name, rounds] of Object.entries(figures)) {
    const [cpu, user, system, wall] = [0, 1, 2, 3].map((column) => median(rounds.map((round) => round[column])));
    console.log(`${name.padEnd(34)} backend CPU ${cpu.toFixed(0).padStart(5)} µs a call (user ${user.toFixed(0)}, system ${system.toFixed(0)}), wall ${wall.toFixed(0)} µs`);
  }
} finally {
  await sql.query("drop table statement_cost_baseline");
  await pool.end();
}
