/**
 * The subscription manager's idle cost (issue 18, then watched resources), on PostgreSQL: N GitLab
 * connections (default 1,000 then 10,000), each watching R projects (default 10: 10,000 then
 * 100,000 watched resources), each resource with an ACTIVE project webhook nothing is due on, and
 * the manager loop running as in production (a claim every second, a plan every 5 s). The start-up
 * plan (every connection, once) is timed on its own; then, over the steady window, the manager's
 * queries per minute, their mean time, the Node process's CPU and the database time its statements
 * took, as a share of one core: both must stay flat as N grows (an idle plan reads the empty change
 * table; the claim is an index range scan that finds nothing).
 *
 *   npx tsx bench/subscriptions/run.ts                    # 1,000 and 10,000 connections × 10 resources, 30 s each
 *   npx tsx bench/subscriptions/run.ts --sizes 10000 --resources 10 --duration 60
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

const { values: args } = parseArgs({ options: { sizes: { type: "string", default: "1000,10000" }, resources: { type: "string", default: "10" }, duration: { type: "string", default: "30" } } });
const SIZES = args.sizes!.split(",").map(Number);
const PER_CONNECTION = Number(args.resources);
const DURATION_S = Number(args.duration);

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
  await sql.query(`insert into forwarding_trigger (id, deployment_id, connector, trigger) values ($1, $2, 'gitlab', 'push')`, [`ft_${deployment}`, deployment]);
  await sql.query(
    `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, status, updated_at)
     select 'ca_' || g, $1, 'gitlab', 'user' || g, 'ext' || g, 'sealed', '{}', 'ACTIVE', now() from generate_series(1, $2) g`,
    [deployment, size],
  );
  // R projects per connection, each watched with its live project webhook (checked every 6 hours: nothing due).
  await sql.query(
    `insert into watched_resource (id, connected_account_id, params, params_key)
     select 'res_' || c || '_' || r, 'ca_' || c, jsonb_build_object('project_id', (c * 1000 + r)::text), 'project_id=' || (c * 1000 + r)
     from generate_series(1, $1) c, generate_series(1, $2) r`,
    [size, PER_CONNECTION],
  );
  await sql.query(
    `insert into provider_subscription (id, deployment_id, connected_account_id, connector, resource, events, status, provider_id, watched_resource_id, resource_params, next_attempt_at, updated_at)
     select 'psub_' || c || '_' || r, $1, 'ca_' || c, 'gitlab', 'projects/' || (c * 1000 + r), '{push_events}', 'ACTIVE', 'hook-' || c || '_' || r,
            'res_' || c || '_' || r, jsonb_build_object('project_id', (c * 1000 + r)::text), now() + interval '6 hours', now()
     from generate_series(1, $2) c, generate_series(1, $3) r`,
    [deployment, size, PER_CONNECTION],
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
      databaseOutage: { noted: () => false },
      onFailed: () => undefined,
    });
    // The start-up plan: every connection once (the changes the seed left behind are covered by it).
    const startedPlan = performance.now();
    await manager.runOnce(true);
    const startupPlanMs = Math.round(performance.now() - startedPlan);
    stats.clear();
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    manager.start();
    await new Promise((resolve) => setTimeout(resolve, DURATION_S * 1000));
    await manager.stop();
    const cpu = process.cpuUsage(cpuBefore);
    const wallMs = performance.now() - wallBefore;
    const total = [...stats.values()].reduce((sum, s) => sum + s.count, 0);
    const statementMs = [...stats.values()].reduce((sum, s) => sum + s.ms, 0);
    const worked = await database.sql.query<{ changed: string }>(`select count(*) as changed from provider_subscription where last_renewed_at is not null or status <> 'ACTIVE'`);
    return {
      size,
      resources: size * PER_CONNECTION,
      startupPlanMs,
      // The manager's own CPU (this process runs nothing else while it idles), and the time its statements took (an upper bound of the database's share).
      nodeCpuPercent: Number((((cpu.user + cpu.system) / 1000 / wallMs) * 100).toFixed(2)),
      statementPercent: Number(((statementMs / wallMs) * 100).toFixed(2)),
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
console.log("connections  resources  start-up plan ms  queries/min  plan/min  plan mean ms  claim/min  claim mean ms  node cpu %  statements %  rows touched");
for (const r of results) {
  const plan = r.statements.subscriptions_pending_changes ?? { perMinute: 0, meanMs: 0 };
  const claim = r.statements.subscriptions_claim ?? { perMinute: 0, meanMs: 0 };
  console.log(
    [
      String(r.size).padStart(11),
      String(r.resources).padStart(11),
      String(r.startupPlanMs).padStart(18),
      String(r.queriesPerMinute).padStart(13),
      String(plan.perMinute).padStart(10),
      String(plan.meanMs).padStart(14),
      String(claim.perMinute).padStart(11),
      String(claim.meanMs).padStart(15),
      String(r.nodeCpuPercent).padStart(12),
      String(r.statementPercent).padStart(14),
      String(r.rowsTouched).padStart(14),
    ].join(""),
  );
}
console.log(JSON.stringify({ bench: "subscriptions", durationSeconds: DURATION_S, results }));
