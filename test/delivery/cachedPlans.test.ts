import { afterAll, beforeAll, expect, test } from "vitest";
import type { Sql, SqlConnection } from "../../src/db/sql.ts";
import { claim } from "../../src/delivery/queue/claim.ts";
import { enqueue } from "../../src/delivery/queue/enqueue.ts";
import { recordAttempts } from "../../src/delivery/queue/recordAttempts.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { executeArguments, mostRowsDiscarded, planText } from "../helpers/queryPlans.ts";
import { githubEventToEnqueue, succeededAttempt } from "../helpers/queue.ts";
import { statementRecorder } from "../helpers/statementRecorder.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The hot path's statements, planned once on a new deployment's empty tables and then run on grown
 * ones, as a connection's cached plan is: until autovacuum next analyzes a table, PostgreSQL keeps
 * the plan it made when the table was small. Such plans read the whole delivery and replay-claim
 * tables on every batch (a sequential scan or a hash of them), so the benchmark's rate fell from
 * round to round as they grew (docs/decisions.md, "Plans made on empty tables"). The pools these
 * statements run on must make plans that reach rows through indexes whatever the tables held when
 * they were planned.
 *
 * On PostgreSQL: the pools' sessions carry the settings. The embedded database's one session serves
 * Prisma too, so there its hot path's Sqls set them for each named statement (src/db/pgliteSql.ts,
 * tested in test/db/pgliteSql.test.ts); the last test here checks they are the pools' settings.
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const GROWN = 5_000;

let app: TestApp;
let ada: Operator;

beforeAll(async () => {
  if (!onPostgres) return;
  app = await startTestApp({});
  ada = await createOperator(app, "Ada");
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: "https://example.com/hook", triggers: [{ connector: "github", trigger: "issue_opened" }] } }, { token: ada.token }));
  await app.database.sql.query(
    `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, status, updated_at)
     values ('plan_account', $1, 'github', 'ada', '583231', 'unused', '{}', 'ACTIVE', now())`,
    [ada.deploymentId],
  );
}, 120_000);
afterAll(async () => {
  await app?.close();
});

/** What a statement sends (text and parameters), without running it. */
async function statementOf(run: (sql: Sql) => Promise<unknown>) {
  const { recorder, sent } = statementRecorder();
  await run(recorder).catch(() => {});
  return sent.at(-1)!;
}

/**
 * A statement prepared on one connection of `pool` (with that pool's settings) and planned on the
 * tables as they are, with the generic plan a busy connection ends up caching. `explain` runs that
 * cached plan later, rolled back.
 */
async function preparedOn(pool: Sql, name: string, statement: { text: string; params: unknown[] }) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const connection = await new Promise<SqlConnection>((resolve, reject) => {
    pool
      .withConnection(async (held) => {
        resolve(held);
        await released;
        await held.exec(`deallocate ${name}; reset plan_cache_mode`);
      })
      .catch(reject);
  });
  const execute = `execute ${name}${await executeArguments(connection, statement.params)}`;
  await connection.exec("set plan_cache_mode = force_generic_plan");
  await connection.query(`prepare ${name} as ${statement.text}`);
  await inRolledBack(connection, () => connection.query(`explain ${execute}`));
  return {
    release,
    async explain(): Promise<string> {
      const rows = await inRolledBack(connection, () => connection.query<{ "QUERY PLAN": string }>(`explain (analyze, costs off) ${execute}`));
      // The plan made on the small tables, not a new one.
      const [planned] = await connection.query<{ generic_plans: number | string }>("select generic_plans from pg_prepared_statements where name = $1", [name]);
      expect(Number(planned.generic_plans)).toBe(2);
      return planText(rows);
    },
  };
}

async function inRolledBack<T>(connection: SqlConnection, work: () => Promise<T>): Promise<T> {
  await connection.exec("begin");
  try {
    return await work();
  } finally {
    await connection.exec("rollback");
  }
}

/** Sequential scans of the tables growTables grows that ran (not "never executed"). */
const grownTableScans = (plan: string) => [...plan.matchAll(/Seq Scan on (delivery|trigger_event|inbound_body_digest)\b[^\n]*\(actual/g)].map((match) => match[1]);
/**
 * Bitmap scans of those tables anywhere in the plan, run or not. A bitmap scan never marks the
 * index entries of dead rows as dead, so one through a status index reads every version left since
 * the last vacuum on each call; the hot path's pools run with enable_bitmapscan off (src/db/database.ts).
 */
const grownTableBitmapScans = (plan: string) => [...plan.matchAll(/Bitmap Heap Scan on (delivery|trigger_event|inbound_body_digest)\b/g)].map((match) => match[1]);
/** The most rows any one node produced: a hash built of a whole table shows here. */
const mostRowsRead = (plan: string) => Math.max(0, ...[...plan.matchAll(/actual time=[\d.]+\.\.[\d.]+ rows=(\d+) loops=(\d+)/g)].map((match) => Number(match[1]) * Number(match[2])));

/**
 * GROWN finished deliveries of GROWN events, and GROWN replay claims of another connector. Each
 * delivery was PENDING first, as in the service: its old version stays in the status indexes until a
 * vacuum, so a plan that reaches the batch's deliveries through "status = PENDING" reads them all.
 */
async function growTables() {
  const { sql } = app.database;
  await sql.query(
    `insert into trigger_event (id, deployment_id, connector, trigger, account, payload, occurred_at, dedupe_key)
     select 'evt_grown_' || i, $1, 'github', 'issue_opened', 'ada', '{}', now(), 'grown-' || i from generate_series(1, $2::int) i`,
    [ada.deploymentId, GROWN],
  );
  await sql.query(
    `insert into delivery (id, event_id, deployment_id, url, status, next_attempt_at, created_at, updated_at, event_received_at)
     select 'dlv_grown_' || i, 'evt_grown_' || i, $1, 'https://example.com/hook', 'PENDING', now(), now(), now(), now()
     from generate_series(1, $2::int) i`,
    [ada.deploymentId, GROWN],
  );
  await sql.query("update delivery set status = 'SUCCEEDED', next_attempt_at = null where id like 'dlv_grown_%'");
  await sql.query(
    `insert into inbound_body_digest (deployment_id, connector, digest, dedupe_key, seen_at)
     select $1, 'other', md5(i::text), 'grown-' || i, now() from generate_series(1, $2::int) i`,
    [ada.deploymentId, GROWN],
  );
}

const event = (n: number) =>
  githubEventToEnqueue(ada.deploymentId, `cached_${n}`, { bodyClaim: { digest: `digest-${n}`, key: `cached_${n}`, windowSeconds: 300 } });

const expectIndexed = (plan: string) => {
  expect(grownTableScans(plan)).toEqual([]);
  expect(grownTableBitmapScans(plan)).toEqual([]);
  expect(mostRowsDiscarded(plan)).toBeLessThan(100);
  expect(mostRowsRead(plan)).toBeLessThan(100);
};

const attempt = (n: number) => succeededAttempt(`dlv_grown_${n}`, { url: "https://example.com/hook" });

let accepting: Awaited<ReturnType<typeof preparedOn>>;
let recording: Awaited<ReturnType<typeof preparedOn>>;
let claiming: Awaited<ReturnType<typeof preparedOn>>;

beforeAll(async () => {
  if (!onPostgres) return;
  const { recordingSql, workerSql, sql } = app.database;
  // No analyze meanwhile: it would have the cached plans made again on the grown tables' statistics.
  for (const table of ["trigger_event", "delivery", "inbound_body_digest"]) await sql.query(`alter table ${table} set (autovacuum_enabled = off)`);
  // Each on the pool it runs on in the service, planned while the deployment is new...
  accepting = await preparedOn(recordingSql, "accepting", await statementOf((sql) => enqueue(sql, [event(1), event(2)], new Date(), { slots: 2, perUrl: 64, inFlight: new Map(), leaseMs: 30_000 })));
  recording = await preparedOn(workerSql, "recording", await statementOf((sql) => recordAttempts(sql, [attempt(1), attempt(2)], 60_000, new Date())));
  claiming = await preparedOn(workerSql, "claiming", await statementOf((sql) => claim(sql, 10, 30_000, 64, new Date())));
  // ... then a busy minute later.
  await growTables();
}, 60_000);
afterAll(() => {
  for (const prepared of [accepting, recording, claiming]) prepared?.release();
});

test.skipIf(!onPostgres)("the accepting statement's cached plan reaches grown tables through their indexes (recording pool)", async () => {
  expectIndexed(await accepting.explain());
});

test.skipIf(!onPostgres)("recording attempts' cached plan reaches grown tables through their indexes (worker pool)", async () => {
  expectIndexed(await recording.explain());
});

test.skipIf(!onPostgres)("the claim's cached plan reaches grown tables through their indexes (worker pool)", async () => {
  expectIndexed(await claiming.explain());
});

test.skipIf(onPostgres)("the embedded database's hot path plans with the settings of the server's pools", async () => {
  const embedded = await startTestApp({});
  try {
    const { sql, workerSql, recordingSql } = embedded.database;
    const settingsOf = async (on: Sql) =>
      (
        await on.query(
          "select current_setting('enable_seqscan') as seq, current_setting('enable_bitmapscan') as bitmap, current_setting('plan_cache_mode') as plans",
          [],
          "planner_settings",
        )
      )[0];
    expect(await settingsOf(recordingSql)).toEqual({ seq: "off", bitmap: "off", plans: "force_generic_plan" });
    expect(await settingsOf(workerSql)).toEqual({ seq: "off", bitmap: "off", plans: "auto" });
    // Prisma's and every other statement's: PostgreSQL's own.
    expect(await settingsOf(sql)).toEqual({ seq: "on", bitmap: "on", plans: "auto" });
  } finally {
    await embedded.close();
  }
});
