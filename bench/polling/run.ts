/**
 * The polling benchmark (issue 18): N connections of a polled connector, all scheduled, nothing
 * due. What a poller does per tick then is one `schedule` (rows without a schedule: none) and one
 * `claim` (due rows: none); both must cost the same at 1,000 and 10,000 connections.
 *
 *   npm run bench:polling                    # 1,000 and 10,000 connections on PostgreSQL (BENCH_DATABASE_URL)
 *   npm run bench:polling -- --sizes 1000,10000,50000 --rounds 100
 *
 * Measures the poller's round (schedule + claim, `runOnce`) and the buffers each statement reads
 * (`EXPLAIN (ANALYZE, BUFFERS)`). Writes bench/polling/results.json.
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { allConnectors } from "../../src/connectors/registry.ts";
import { openDatabase } from "../../src/db/database.ts";
import { createLogger } from "../../src/log.ts";
import { createPoller } from "../../src/polling/poller.ts";
import { polledPairs, pollTargets } from "../../src/polling/targets.ts";
import { benchDatabase } from "../database.ts";

const connectors = allConnectors();

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({ options: { sizes: { type: "string", default: "1000,10000" }, rounds: { type: "string", default: "60" } } });
const sizes = args.sizes.split(",").map(Number);
const rounds = Number(args.rounds);
const INTERVAL_MS = 60_000;

const bench = benchDatabase();
await bench.create();
const logger = createLogger("silent");
const database = await openDatabase({ kind: "postgresql", url: bench.url }, logger);
const { sql } = database;
const now = new Date("2026-03-01T12:00:00.000Z");
const clock = { now: () => now };
const unused = () => {
  throw new Error("nothing is due: no connection may be read");
};
const poller = createPoller(
  {
    sql,
    clock,
    logger,
    connectorEnv: {},
    accessTokens: { fresh: unused },
    inboundEvents: { acceptEvents: unused, pollAccount: unused },
    inboundSecrets: { get: unused },
    databaseOutage: { noted: () => false },
    diskSpace: { low: () => undefined },
    lifecycle: { emitFor: unused },
  },
  { intervalMs: INTERVAL_MS },
);
const pairs = polledPairs(pollTargets(connectors, INTERVAL_MS));

await sql.query(`insert into organization (id, name) values ('org_bench', 'Bench')`);
await sql.query(`insert into deployment (id, organization_id, name) values ('dep_bench', 'org_bench', 'Bench')`);
await sql.query(`insert into forwarding_settings (deployment_id, forwarding_url, updated_at) values ('dep_bench', 'https://example.com/hook', now())`);
await sql.query(`insert into forwarding_trigger (id, deployment_id, connector, trigger) values ('ft_bench', 'dep_bench', 'spotify', 'track_played')`);

const explain = async (statement: string, params: unknown[]) => {
  const rows = await sql.query<{ "QUERY PLAN": unknown }>(`explain (analyze, buffers, format json) ${statement}`, params);
  const plan = (rows[0]["QUERY PLAN"] as [{ Plan: Record<string, unknown>; "Execution Time": number }])[0];
  const buffers = (plan.Plan["Shared Hit Blocks"] as number) + (plan.Plan["Shared Read Blocks"] as number);
  return { buffers, ms: plan["Execution Time"] };
};

const results: Record<string, unknown>[] = [];
let have = 0;
for (const size of sizes) {
  await sql.query(
    `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, updated_at)
     select 'ca_' || g, 'dep_bench', 'spotify', 'listener-' || g, 'user-' || g, 'sealed', '{}', now() from generate_series($1::int + 1, $2::int) g`,
    [have, size],
  );
  have = size;
  const { scheduled } = await poller.runOnce();
  // Nothing due: every schedule an hour ahead of the clock.
  await sql.query(`update connected_account set next_poll_at = $1::timestamp + interval '1 hour'`, [now.toISOString()]);
  await sql.query(`analyze connected_account`);
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = process.hrtime.bigint();
    const round = await poller.runOnce();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (round.polled !== 0 || round.scheduled !== 0) throw new Error("a round did work with nothing due");
  }
  times.sort((a, b) => a - b);
  const claim = await explain(
    `select id from connected_account a where a.next_poll_at <= $1::timestamp and (a.poll_lease_until is null or a.poll_lease_until < $1::timestamp) order by a.next_poll_at limit 50 for update of a skip locked`,
    [now.toISOString()],
  );
  const schedule = await explain(
    `select a.id from connected_account a where a.next_poll_at is null and a.connector = any($1::text[]) and a.status = 'ACTIVE'`,
    [pairs.connectors],
  );
  const figure = {
    connections: size,
    scheduledAtStart: scheduled,
    roundP50Ms: +times[Math.floor(times.length / 2)].toFixed(2),
    roundP99Ms: +times[Math.floor(times.length * 0.99)].toFixed(2),
    claimBuffers: claim.buffers,
    claimMs: +claim.ms.toFixed(3),
    scheduleBuffers: schedule.buffers,
    scheduleMs: +schedule.ms.toFixed(3),
    roundsPerMinute: 60_000 / Math.min(10_000, Math.max(25, INTERVAL_MS / 6)),
  };
  results.push(figure);
  console.log(figure);
}
writeFileSync(join(here, "results.json"), JSON.stringify({ at: new Date().toISOString(), loadavg: loadavg(), results }, null, 2) + "\n");
await database.close();
await bench.drop();
