/**
 * The event-log and retention benchmark (issue 11), on PostgreSQL:
 *
 * 1. eventLog's keyset pages: the first page against a page deep in N events (default 1,000,000)
 *    of one deployment, through the real GraphQL API — the deep/first ratio of p50 and req/s.
 * 2. Pruning: N events older than RETENTION_DAYS (each with its delivery and attempt) are deleted
 *    by the retention job while signed GitHub webhooks flow in at a fixed rate — inbound p99
 *    without pruning, then while it runs (the added p99), and how long the whole prune took.
 *
 *   npx tsx bench/eventlog/run.ts                # 1,000,000 events, 10 s per measurement
 *   npx tsx bench/eventlog/run.ts --quick        # 100,000 events, 3 s per measurement (for `npm run bench`)
 *   npx tsx bench/eventlog/run.ts --events 300000 --duration 5 --rate 200
 *
 * The service runs as its own process (src/main.ts, as deployed; its own retention job switched
 * off); the pruner runs in this process with its own connection pool — another instance, as it
 * would be in production. Everything on 127.0.0.1; the database sy_bench_<random> on
 * BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres) is created and dropped.
 * Prints a table and one JSON line (`{"bench":"eventlog",…}`) with the headline figures; exits
 * non-zero only when requests failed or a page came back wrong.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { benchDatabase } from "../database.ts";
import { loadConfig } from "../../src/config.ts";
import { systemClock } from "../../src/clock.ts";
import { openDatabase } from "../../src/db/database.ts";
import { encodeCursor } from "../../src/forwarding/eventLog.ts";
import { createLogger } from "../../src/log.ts";
import { replayWindowSeconds } from "../../src/connectors/registry.ts";
import { createRetentionJob } from "../../src/retention/prune.ts";
import { githubIssuesPayload, githubWebhook } from "../../test/helpers/fakeProviders/github.ts";
import { serviceProcess } from "../../test/helpers/serviceProcess.ts";
import { createBenchOperator } from "../operator.ts";

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    events: { type: "string" },
    duration: { type: "string" },
    rate: { type: "string", default: "100" },
    connections: { type: "string", default: "10" },
  },
});
const EVENTS = Number(args.events ?? (args.quick ? 100_000 : 1_000_000));
const DURATION = Number(args.duration ?? (args.quick ? 3 : 10));
const RATE = Number(args.rate);
const CONNECTIONS = Number(args.connections);
const PAGE = 50;
const SECRET = "bench-github-webhook-secret";

const benchDb = benchDatabase();

const encryptionKey = randomBytes(32).toString("base64");
await benchDb.create();
const service = await serviceProcess({
  DATABASE_URL: benchDb.url,
  ENCRYPTION_KEY: encryptionKey,
  RATE_LIMIT_PER_MINUTE: "100000000",
  CONNECTOR_GITHUB_WEBHOOK_SECRET: SECRET,
  // The service's own pruner stays out of the way: this process prunes, when it is time.
  RETENTION_DAYS: "36500",
});
let failed = false;
const db = new pg.Client({ connectionString: benchDb.url });

try {
  await service.start();
  await db.connect();
  // Plain GraphQL strings (bench/operator.ts): the typed test documents exist only after `pretest`.
  const benchOperator = await createBenchOperator(service.url);
  const operator = { ...benchOperator, deploymentId: benchOperator.development, apiKey: await benchOperator.apiKey(benchOperator.development) };
  await db.query(
    `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, status, updated_at)
     values ($1, $2, 'github', 'bench', '583231', 'unused', '{}', 'ACTIVE', now())`,
    [`bench_${randomBytes(6).toString("hex")}`, operator.deploymentId],
  );
  // Forwarded to a closed port with the worker paused: inbound cost only, no outbound traffic.
  await operator.gql(
    "mutation($deploymentId: ID!, $input: ForwardingSettingsInput!) { saveForwardingSettings(deploymentId: $deploymentId, input: $input) { forwardingUrl } }",
    { deploymentId: operator.deploymentId, input: { forwardingUrl: "http://127.0.0.1:9/hook", triggers: [{ connector: "github", trigger: "issue_opened" }] } },
  );
  await db.query(`update forwarding_settings set status = 'PAUSED' where deployment_id = $1`, [operator.deploymentId]);

  // N events 40–80 days old, one a few seconds apart, each with a succeeded delivery and its attempt.
  const seeded = Date.now();
  await db.query(
    `insert into trigger_event (id, deployment_id, connector, trigger, account, payload, occurred_at, received_at, dedupe_key)
     select 'evt_seed_' || i, $1, 'github', case when i % 2 = 0 then 'issue_opened' else 'issue_closed' end, 'acct_' || (i % 100),
            jsonb_build_object('n', i), ts, ts, 'seed:' || i
     from generate_series(1, $2::int) i, lateral (select (now() at time zone 'UTC') - interval '40 days' - (i * interval '3 seconds') as ts) t`,
    [operator.deploymentId, EVENTS],
  );
  await db.query(
    `insert into delivery (id, event_id, deployment_id, url, status, attempts, next_attempt_at, last_status_code, created_at, updated_at, completed_at, event_received_at)
     select 'dlv_seed_' || substr(e.id, 10), e.id, e.deployment_id, 'http://127.0.0.1:9/hook', 'SUCCEEDED', 1, null, 200, e.received_at, e.received_at, e.received_at, e.received_at
     from trigger_event e where e.deployment_id = $1`,
    [operator.deploymentId],
  );
  await db.query(
    `insert into delivery_attempt (delivery_id, number, url, started_at, duration_ms, status_code, response_body)
     select d.id, 1, d.url, d.created_at, 20 + (random() * 80)::int, 200, 'ok'
     from delivery d where d.deployment_id = $1`,
    [operator.deploymentId],
  );
  await db.query(`vacuum analyze trigger_event, delivery, delivery_attempt`);
  const seedSeconds = (Date.now() - seeded) / 1000;

  // --- 1. eventLog: first page vs a page deep in the log ---
  const query = `query ($id: ID!, $after: String, $filter: EventFilter) { deployment(id: $id) { eventLog(first: ${PAGE}, after: $after, filter: $filter) { nodes { id trigger account receivedAt } pageInfo { hasNextPage endCursor } } } }`;
  const [deep] = (
    await db.query<{ received_at: Date; id: string }>(
      `select received_at at time zone 'UTC' as received_at, id from trigger_event where deployment_id = $1 order by received_at desc, id desc offset $2 limit 1`,
      [operator.deploymentId, EVENTS - PAGE - 1],
    )
  ).rows;
  // Every seeded delivery SUCCEEDED: filtering by it walks delivery's status index as the plain log
  // walks the event's; FAILED matches nothing and must cost no more than a page (no walk of the log).
  const pages: { name: string; after: string | null; status?: string; expected?: number }[] = [
    { name: "eventLog first page", after: null },
    { name: `eventLog page after ${(EVENTS - PAGE - 1).toLocaleString("en")} events`, after: encodeCursor(new Date(deep.received_at), deep.id) },
    { name: "eventLog first page, status SUCCEEDED (every event)", after: null, status: "SUCCEEDED" },
    { name: "eventLog, status FAILED (no event)", after: null, status: "FAILED", expected: 0 },
  ];
  const body = (page: (typeof pages)[number]) =>
    JSON.stringify({ query, variables: { id: operator.deploymentId, after: page.after, filter: page.status ? { status: page.status } : null } });
  for (const page of pages) {
    const answer = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": operator.apiKey },
      body: body(page),
    });
    const nodes = ((await answer.json()) as { data?: { deployment: { eventLog: { nodes: unknown[] } } } }).data?.deployment.eventLog.nodes;
    if (nodes?.length !== (page.expected ?? PAGE)) {
      failed = true;
      console.error(`${page.name}: expected ${page.expected ?? PAGE} events, got ${nodes?.length}`);
    }
  }
  const pageResults = [];
  for (const page of pages) {
    const result = await autocannon({
      url: `${service.url}/graphql`,
      method: "POST",
      connections: CONNECTIONS,
      duration: DURATION,
      headers: { "content-type": "application/json", "x-api-key": operator.apiKey },
      body: body(page),
    });
    if (result.errors || result.non2xx) failed = true;
    pageResults.push({ measurement: page.name, reqPerSec: Math.round(result.requests.average), p50Ms: result.latency.p50, p99Ms: result.latency.p99, errors: result.errors + result.non2xx });
  }

  // --- 2. inbound webhooks at a fixed rate, without and then while pruning N old events ---
  const inbound = async (label: string) => {
    const result = await autocannon({
      url: `${service.url}/webhooks/${operator.deploymentId}/github`,
      method: "POST",
      connections: CONNECTIONS,
      duration: DURATION,
      overallRate: RATE,
      requests: [
        {
          method: "POST",
          setupRequest: (request) => {
            const signed = githubWebhook("issues", githubIssuesPayload("opened", { title: "bench" }), SECRET, { deliveryId: randomUUID() });
            return { ...request, headers: signed.headers, body: signed.body };
          },
        },
      ],
    });
    if (result.errors || result.non2xx) failed = true;
    return { measurement: label, reqPerSec: Math.round(result.requests.average), p50Ms: result.latency.p50, p99Ms: result.latency.p99, errors: result.errors + result.non2xx };
  };
  const quiet = await inbound(`inbound webhooks at ${RATE}/s`);

  const config = loadConfig({ DATABASE_URL: benchDb.url, NODE_ENV: "test", ENCRYPTION_KEY: encryptionKey, LOG_LEVEL: "warn", RETENTION_DAYS: "30" });
  const logger = createLogger("warn");
  const database = await openDatabase({ kind: "postgresql", url: benchDb.url, poolSize: 2 }, logger);
  const pruner = createRetentionJob({ sql: database.sql, retentionDays: config.retentionDays, logger, clock: systemClock, replayWindowSeconds });
  const pruneStarted = Date.now();
  let pruneSeconds: number | undefined;
  const pruning = pruner.runOnce().then((counts) => {
    pruneSeconds = (Date.now() - pruneStarted) / 1000;
    return counts;
  });
  const during = await inbound(`inbound webhooks at ${RATE}/s while pruning`);
  const pruneCoveredWindow = pruneSeconds === undefined;
  const counts = await pruning;
  await database.close();
  if (counts.events !== EVENTS) {
    failed = true;
    console.error(`pruned ${counts.events} events, expected ${EVENTS}`);
  }

  console.table([...pageResults, quiet, during]);
  const [first, deepPage, everyStatus, noStatus] = pageResults;
  console.log(
    JSON.stringify({
      bench: "eventlog",
      events: EVENTS,
      seedSeconds,
      eventLogFirstP50Ms: first.p50Ms,
      eventLogDeepP50Ms: deepPage.p50Ms,
      eventLogDeepToFirstP50: +(deepPage.p50Ms / Math.max(first.p50Ms, 1)).toFixed(2),
      eventLogDeepToFirstReqPerSec: +(deepPage.reqPerSec / Math.max(first.reqPerSec, 1)).toFixed(2),
      eventLogStatusEveryP50Ms: everyStatus.p50Ms,
      eventLogStatusNoneP50Ms: noStatus.p50Ms,
      inboundP99Ms: quiet.p99Ms,
      inboundP99WhilePruningMs: during.p99Ms,
      addedInboundP99Ms: during.p99Ms - quiet.p99Ms,
      prunedEvents: counts.events,
      pruneSeconds,
      prunedRowsPerSecond: pruneSeconds ? Math.round((3 * counts.events) / pruneSeconds) : undefined,
      pruneCoveredMeasurement: pruneCoveredWindow,
      load: loadavg().map((l) => +l.toFixed(2)),
    }),
  );
} catch (error) {
  failed = true;
  console.error(error);
  console.error(service.output().slice(-2000));
} finally {
  await db.end().catch(() => {});
  await service.stop().catch(() => {});
  await benchDb.drop();
}
process.exit(failed ? 1 : 0);
