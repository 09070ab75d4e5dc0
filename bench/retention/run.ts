/**
 * A retention pass over a deployment whose old events are still owed a delivery (forwarding paused
 * for weeks: every one PENDING, kept) beside a deployment whose old events all go. What it
 * measures is how often the kept rows are walked: a pass that walks them again for every batch of
 * the other deployment's deletions costs (kept × batches); one that walks each deployment's log once,
 * (kept + deleted).
 *
 *   npx tsx bench/retention/run.ts                       # 50,000 kept, 100,000 deleted
 *   npx tsx bench/retention/run.ts --kept 20000 --deleted 50000
 *
 * On BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres), in a database of
 * its own (created and dropped). Prints the pass's time, its statements and the rows PostgreSQL read.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { benchDatabase } from "../database.ts";
import { systemClock } from "../../src/clock.ts";
import { openDatabase } from "../../src/db/database.ts";
import type { Sql } from "../../src/db/sql.ts";
import { createLogger } from "../../src/log.ts";
import { replayWindowSeconds } from "../../src/connectors/registry.ts";
import { createRetentionJob } from "../../src/retention/prune.ts";
import { statementRecorder } from "../../test/helpers/statementRecorder.ts";

const { values: args } = parseArgs({ options: { kept: { type: "string", default: "50000" }, deleted: { type: "string", default: "100000" } } });
const KEPT = Number(args.kept);
const DELETED = Number(args.deleted);

const benchDb = benchDatabase();
await benchDb.create();
const logger = createLogger("warn");
const database = await openDatabase({ kind: "postgresql", url: benchDb.url, poolSize: 4 }, logger);
try {
  const sql = database.sql;
  await sql.query(`insert into organization (id, name) values ('org_bench', 'Bench')`);
  await sql.query(`insert into deployment (id, organization_id, name) values ('dep_paused', 'org_bench', 'Paused'), ('dep_busy', 'org_bench', 'Busy')`);
  // Both 40–45 days old, interleaved in time; the paused deployment's deliveries are all PENDING.
  await seed(sql, "dep_paused", KEPT, "PENDING");
  await seed(sql, "dep_busy", DELETED, "SUCCEEDED");
  await sql.query(`vacuum analyze trigger_event, delivery`);

  const { recorder, sent } = statementRecorder(sql);
  const job = createRetentionJob({ sql: recorder, retentionDays: 30, logger, clock: systemClock, replayWindowSeconds }, { pauseMs: 0 });
  const [before] = await sql.query<{ tup_fetched: string }>(`select tup_fetched from pg_stat_database where datname = current_database()`);
  const started = performance.now();
  const counts = await job.runOnce();
  const ms = Math.round(performance.now() - started);
  await sql.query("select pg_stat_force_next_flush()").catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 600)); // the statistics collector's next report
  const [after] = await sql.query<{ tup_fetched: string }>(`select tup_fetched from pg_stat_database where datname = current_database()`);
  const [left] = await sql.query<{ kept: number; deleted: number }>(
    `select count(*) filter (where deployment_id = 'dep_paused')::int as kept, count(*) filter (where deployment_id = 'dep_busy')::int as deleted from trigger_event`,
  );
  if (left.kept !== KEPT || left.deleted !== 0) throw new Error(`the pass left ${left.kept} of ${KEPT} kept events and ${left.deleted} of those to delete`);
  console.log(
    JSON.stringify({
      bench: "retention",
      load: loadavg()[0].toFixed(1),
      kept: KEPT,
      deleted: counts.events,
      passMs: ms,
      statements: sent.length,
      rowsFetched: Number(after.tup_fetched) - Number(before.tup_fetched),
    }),
  );
} finally {
  await database.close();
  await benchDb.drop();
}

async function seed(sql: Sql, deploymentId: string, n: number, status: "PENDING" | "SUCCEEDED") {
  await sql.query(
    `insert into trigger_event (id, deployment_id, connector, trigger, account, payload, occurred_at, received_at, dedupe_key)
     select 'evt_' || $1 || '_' || i, $1, 'github', 'issue_opened', 'bench', json_build_object('n', i), ts, ts, $1 || ':' || i
     from generate_series(1, $2::int) i, lateral (select (now() at time zone 'UTC') - interval '40 days' - (i * interval '4 seconds') as ts) t`,
    [deploymentId, n],
  );
  await sql.query(
    `insert into delivery (id, event_id, deployment_id, url, status, attempts, next_attempt_at, created_at, updated_at, event_received_at)
     select 'dlv_' || substr(e.id, 5), e.id, e.deployment_id, 'http://127.0.0.1:9/hook', $2::"DeliveryStatus", 0, case when $2 = 'PENDING' then e.received_at end, e.received_at, e.received_at, e.received_at
     from trigger_event e where e.deployment_id = $1`,
    [deploymentId, status],
  );
}
