/**
 * The subscription manager's idle cost (issue 18), on PostgreSQL: N connections (default 1,000
 * then 10,000), each with an ACTIVE provider subscription nothing is due on, and the manager loop
 * running as in production (a claim every second, a plan every 5 s). Counts the manager's queries
 * per minute and their mean time: the count must stay flat as N grows (the work per query is the
 * plan's one statement over the wanted rows, and the claim's index range scan that finds nothing).
 *
 *   npx tsx bench/subscriptions/run.ts                    # 1,000 and 10,000 connections, 30 s each
 *   npx tsx bench/subscriptions/run.ts --sizes 10000 --duration 60
 *
 * The database sy_bench_<random> on BENCH_DATABASE_URL is created and dropped. Prints a table and
 * one JSON line (`{"bench":"subscriptions",…}`).
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import pino from "pino";
import { benchDatabase } from "../database.ts";
import { systemClock } from "../../src/clock.ts";
import { allConnectors } from "../../src/connectors/registry.ts";
import { createSecretBox } from "../../src/crypto/secrets.ts";
import { openDatabase } from "../../src/db/database.ts";
import type { Sql } from "../../src/db/sql.ts";
import { createSubscriptionManager } from "../../src/subscriptions/manager.ts";
import { createSubscriptionMetrics } from "../../src/subscriptions/metrics.ts";
import { createSubscriptionQueue } from "../../src/subscriptions/queue/index.ts";
import { createWakeSignal } from "../../src/events/wakeSignal.ts";

const connectors = allConnectors();

const { values: args } = parseArgs({ options: { sizes: { type: "string", default: "1000,10000" }, duration: { type: "string", default: "30" } } });
const SIZES = args.sizes!.split(",").map(Number);
const DURATION_S = Number(args.duration);
const INBOX = "me/mailFolders('Inbox')/messages";

/** Counts and times every statement the manager sends. */
function counting(sql: Sql) {
  const stats = new Map<string, { count: number; ms: number }>();
  const counted: Sql = {
    async query(text, params, name) {
      const started = performance.now();
      try {
        return await sql.query(text, params, name);
      } finally {
        const entry = stats.get(name ?? "unnamed") ?? { count: 0, ms: 0 };
        entry.count++;
        entry.ms += performance.now() - started;
        stats.set(name ?? "unnamed", entry);
      }
    },
    withConnection: (work) => sql.withConnection(work),
  };
  return { sql: counted, stats };
}

async function seed(sql: Sql, size: number) {
  const org = `org_${randomBytes(6).toString("hex")}`;
  const deployment = `dep_${randomBytes(6).toString("hex")}`;
  await sql.query(`insert into organization (id, name) values ($1, 'bench')`, [org]);
  await sql.query(`insert into deployment (id, organization_id, name) values ($1, $2, 'development')`, [deployment, org]);
  await sql.query(`insert into forwarding_trigger (id, deployment_id, connector, trigger) values ($1, $2, 'microsoft', 'message_received')`, [`ft_${deployment}`, deployment]);
  await sql.query(
    `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, status, updated_at)
     select 'ca_' || g, $1, 'microsoft', 'user' || g, 'ext' || g, 'sealed', '{}', 'ACTIVE', now() from generate_series(1, $2) g`,
    [deployment, size],
  );
  await sql.query(
    `insert into provider_subscription (id, deployment_id, connected_account_id, connector, resource, events, status, provider_id, expires_at, next_attempt_at, updated_at)
     select 'psub_' || g, $1, 'ca_' || g, 'microsoft', $2, '{created}', 'ACTIVE', 'graph-' || g, now() + interval '3 days', now() + interval '2 days', now()
     from generate_series(1, $3) g`,
    [deployment, INBOX, size],
  );
  await sql.query(`analyze`);
}

async function measure(size: number) {
  const db = benchDatabase();
  await db.create();
  const logger = pino({ level: "silent" });
  const database = await openDatabase({ kind: "postgresql", url: db.url, poolSize: 4 }, logger);
  try {
    await seed(database.sql, size);
    const { sql, stats } = counting(database.sql);
    const manager = createSubscriptionManager({
      queue: createSubscriptionQueue({ sql, clock: systemClock }),
      clock: systemClock,
      logger,
      box: createSecretBox(randomBytes(32)),
      connectorEnv: {},
      publicUrl: "http://127.0.0.1",
      accessTokens: { fresh: async () => "unused" },
      metrics: createSubscriptionMetrics(sql),
      signal: createWakeSignal(),
      connectors,
      onFailed: () => undefined,
    });
    manager.start();
    await new Promise((resolve) => setTimeout(resolve, DURATION_S * 1000));
    await manager.stop();
    const total = [...stats.values()].reduce((sum, s) => sum + s.count, 0);
    const worked = await database.sql.query<{ changed: string }>(`select count(*) as changed from provider_subscription where last_renewed_at is not null or status <> 'ACTIVE'`);
    return {
      size,
      queriesPerMinute: Math.round((total / DURATION_S) * 60),
      statements: Object.fromEntries([...stats].map(([name, s]) => [name, { perMinute: Math.round((s.count / DURATION_S) * 60), meanMs: Number((s.ms / s.count).toFixed(2)) }])),
      rowsTouched: Number(worked[0].changed),
    };
  } finally {
    await database.close();
    await db.drop();
  }
}

const results = [];
for (const size of SIZES) results.push(await measure(size));
console.log("connections  queries/min  plan/min  plan mean ms  claim/min  claim mean ms  rows touched");
for (const r of results) {
  const plan = r.statements.subscriptions_plan ?? { perMinute: 0, meanMs: 0 };
  const claim = r.statements.subscriptions_claim ?? { perMinute: 0, meanMs: 0 };
  console.log(
    [String(r.size).padStart(11), String(r.queriesPerMinute).padStart(12), String(plan.perMinute).padStart(9), String(plan.meanMs).padStart(13), String(claim.perMinute).padStart(10), String(claim.meanMs).padStart(14), String(r.rowsTouched).padStart(13)].join(""),
  );
}
console.log(JSON.stringify({ bench: "subscriptions", durationSeconds: DURATION_S, results }));
