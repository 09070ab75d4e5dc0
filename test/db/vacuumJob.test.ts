import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sqlOverPool } from "../../src/db/sql.ts";
import { createVacuumJob, VACUUM_LOCK } from "../../src/db/vacuumJob.ts";
import { enqueue } from "../../src/delivery/queue/enqueue.ts";
import { recordAttempts } from "../../src/delivery/queue/recordAttempts.ts";
import { createLogger } from "../../src/log.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { until } from "../helpers/live.ts";
import { createOperator } from "../helpers/operators.ts";
import { ownPostgres, ownServersMissing } from "../helpers/ownServers.ts";
import { githubEventToEnqueue, succeededAttempt } from "../helpers/queue.ts";
import { scaled } from "../helpers/timing.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * Where nothing else vacuums — the embedded database (PGlite has no autovacuum process), or a
 * PostgreSQL server with `autovacuum = off` — the app does: without that, every finished delivery's
 * old row version stays in the delivery table's indexes for good, and each claim reads past all of
 * them (src/db/vacuumJob.ts). A server whose autovacuum runs is left to it.
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const HOOK = "https://example.com/hook";
const FINISHED = 2_000;

let app: TestApp;
/** The test database's server vacuums on its own (PostgreSQL with autovacuum on). */
let serverVacuums = false;
/** What the app logged at warn and above. */
const warnings: string[] = [];
const toldAutovacuumOff = () => warnings.filter((message) => message.startsWith("autovacuum is off on this PostgreSQL server")).length;

beforeAll(async () => {
  app = await startTestApp({}, { worker: false, poller: false, logger: createLogger("warn", { write: (line: string) => warnings.push(JSON.parse(line).msg) }) });
  if (onPostgres) {
    serverVacuums = (await app.database.sql.query<{ on: boolean }>("select current_setting('autovacuum') = 'on' as on"))[0].on;
  }
}, 120_000);
afterAll(async () => {
  await app?.close();
});

test.skipIf(Boolean(ownServersMissing))("a PostgreSQL server whose autovacuum runs is left to it: a pass does nothing", async () => {
  // A server of the test's own, with PostgreSQL's default autovacuum = on.
  const server = await ownPostgres();
  const pool = new pg.Pool({ connectionString: server.url, max: 2 });
  try {
    await server.start();
    await pool.query("create table busy (id int primary key); insert into busy select generate_series(1, 1000); delete from busy");
    // Past the vacuum threshold in the statistics, so a pass that ignored the server's autovacuum would vacuum it.
    await until(
      async () => {
        await pool.query("select pg_stat_force_next_flush()");
        return Number((await pool.query("select n_dead_tup from pg_stat_user_tables where relname = 'busy'")).rows[0]?.n_dead_tup ?? 0) >= 1000;
      },
      "the deleted rows in the statistics",
    );
    const job = createVacuumJob({ sql: sqlOverPool(pool), logger: createLogger("silent"), embedded: false, intervalMs: 60_000 });
    expect(await job.runOnce()).toEqual([]);
  } finally {
    await pool.end();
    await server.remove();
  }
}, scaled(60_000));

describe("where nothing else vacuums: the embedded database, or PostgreSQL with autovacuum off", () => {
  /** Pages the claim's first step reads: the due deliveries, oldest first. */
  const dueScanPages = async () => {
    const plan = await app.database.sql.query<{ "QUERY PLAN": string }>(
      "explain (analyze, buffers, costs off) select id from delivery where status = 'PENDING' and next_attempt_at <= now() order by next_attempt_at limit 40",
    );
    const text = plan.map((row) => row["QUERY PLAN"]).join("\n");
    const [, hit = "0", read = "0"] = /Buffers: shared(?: hit=(\d+))?(?: read=(\d+))?/.exec(text) ?? [];
    return { plan: text, pages: Number(hit) + Number(read) };
  };
  /** The delivery table's dead rows in the statistics (a server's other connections report theirs within seconds). */
  const deadRows = async () => {
    if (!onPostgres) await app.database.sql.query("select pg_stat_force_next_flush()");
    return Number((await app.database.sql.query<{ n: number | string }>("select n_dead_tup as n from pg_stat_user_tables where relname = 'delivery'"))[0].n);
  };

  beforeAll(async () => {
    const ada = await createOperator(app, "Ada");
    ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: HOOK, triggers: [{ connector: "github", trigger: "issue_opened" }] } }, { token: ada.token }));
    const { sql } = app.database;
    await sql.query(
      `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, status, updated_at)
       values ('vacuum_account', $1, 'github', 'ada', '583231', 'unused', '{}', 'ACTIVE', now())`,
      [ada.deploymentId],
    );
    // Deliveries as the service makes them: recorded leased to the worker, then their attempt recorded.
    const event = (n: number) => githubEventToEnqueue(ada.deploymentId, `vacuum_${n}`, { payloadJson: '{"action":"opened"}' });
    for (let first = 0; first < FINISHED; first += 200) {
      const rows = await enqueue(sql, Array.from({ length: 200 }, (_, i) => event(first + i)), new Date(), { slots: 200, perUrl: 1_000, inFlight: new Map(), leaseMs: 30_000 });
      const now = new Date();
      await recordAttempts(
        sql,
        rows.map((row) => succeededAttempt(row.delivery_id!, { url: HOOK, startedAt: now.toISOString() })),
        60_000,
        now,
      );
    }
  }, 120_000);

  test("a pass vacuums the tables past PostgreSQL's thresholds, and the claim's due scan reads past no finished delivery", async ({ skip }) => {
    if (serverVacuums) skip("this PostgreSQL server's autovacuum is on: the app leaves its tables to it (the test above)");
    await until(async () => (await deadRows()) >= FINISHED / 2, "the finished deliveries' old row versions in the statistics", scaled(30_000));
    const before = await dueScanPages();

    const vacuum = app.app.createVacuumJob();
    const done = await vacuum.runOnce();

    expect(done).toContainEqual({ table: "public.delivery", action: "vacuum" });
    expect(await deadRows()).toBe(0);
    const after = await dueScanPages();
    expect(after.plan).toContain("delivery_due_idx");
    expect(before.pages).toBeGreaterThan(5 * Math.max(1, after.pages));
    // Nothing is past a threshold any more: the next pass does nothing.
    expect(await vacuum.runOnce()).toEqual([]);
    // A server without autovacuum is told of once, not every pass; the embedded database not at all.
    expect(toldAutovacuumOff()).toBe(onPostgres ? 1 : 0);
  }, scaled(90_000));

  test.skipIf(!onPostgres)("on a server several instances share, one pass runs at a time", async ({ skip }) => {
    if (serverVacuums) skip("this PostgreSQL server's autovacuum is on: the app leaves its tables to it");
    // Another instance's pass holds the lock (on a connection of its own) while this one's comes.
    await app.database.sql.query("update delivery set updated_at = updated_at");
    await until(async () => (await deadRows()) >= FINISHED / 2, "the updated rows' old versions in the statistics", scaled(30_000));
    const vacuum = app.app.createVacuumJob();
    const other = new pg.Client({ connectionString: app.databaseUrl });
    await other.connect();
    try {
      await other.query("select pg_advisory_lock($1)", [VACUUM_LOCK]);
      expect(await vacuum.runOnce()).toEqual([]);
      await other.query("select pg_advisory_unlock($1)", [VACUUM_LOCK]);
      expect(await vacuum.runOnce()).toContainEqual({ table: "public.delivery", action: "vacuum" });
    } finally {
      await other.end();
    }
  }, scaled(90_000));
});

test.skipIf(onPostgres)("on the embedded database a pass freezes every table, catalogs included, whose oldest transaction id is past the freeze age", async () => {
  // PGlite has no autovacuum to freeze anything, and in single-user mode PostgreSQL does not stop at
  // its wraparound limit: without this, rows would read as written in the future two billion
  // transactions on. A freeze age of 500 stands in for autovacuum_freeze_max_age's 200 million.
  const FREEZE_MAX_AGE = 500;
  const { sql } = app.database;
  const databaseAge = async () => (await sql.query<{ age: number }>("select age(datfrozenxid) as age from pg_database where datname = current_database()"))[0].age;
  // Transactions go by: each txid_current() outside a transaction block takes an id of its own.
  for (let n = 0; n < FREEZE_MAX_AGE + 100; n++) await sql.query("select txid_current()");
  expect(await databaseAge()).toBeGreaterThan(FREEZE_MAX_AGE);

  const job = createVacuumJob({ sql, logger: createLogger("silent"), embedded: true, intervalMs: 60_000, freezeMaxAge: FREEZE_MAX_AGE });
  const done = await job.runOnce();

  expect(done).toContainEqual({ table: "pg_catalog.pg_class", action: "freeze" });
  expect(done).toContainEqual({ table: "public.trigger_event", action: "freeze" });
  expect(await databaseAge()).toBeLessThanOrEqual(FREEZE_MAX_AGE);
  // Nothing is past the freeze age any more: the next pass freezes nothing.
  expect((await job.runOnce()).filter(({ action }) => action === "freeze")).toEqual([]);
}, scaled(90_000));
