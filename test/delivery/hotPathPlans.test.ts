import { afterAll, beforeAll, expect, test } from "vitest";
import type { Sql } from "../../src/db/sql.ts";
import { claim } from "../../src/delivery/queue/claim.ts";
import { enqueue } from "../../src/delivery/queue/enqueue.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { executeArguments, mostRowsDiscarded, planText } from "../helpers/queryPlans.ts";
import { githubEventToEnqueue } from "../helpers/queue.ts";
import { statementRecorder } from "../helpers/statementRecorder.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The accepting statement, asked how it runs on a deployment that grew: it was once fast on empty
 * tables and slow on real ones, routing each event by scanning every account of its connector
 * (5.7 ms per event at 10,000 accounts). It runs once for real, then EXPLAIN ANALYZE runs it again
 * inside a transaction that is rolled back. Plans a connection cached while the tables were small
 * are cachedPlans.test.ts's.
 */
const ACCOUNTS = 3_000;

let app: TestApp;
let ada: Operator;

beforeAll(async () => {
  app = await startTestApp({});
  ada = await createOperator(app, "Ada");
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: "https://example.com/hook", triggers: [] } }, { token: ada.token }));
  const { sql } = app.database;
  await sql.query(
    `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, status, updated_at)
     select 'plan_account_' || i, $1, 'github', 'account-' || i, i::text, 'unused', '{}', 'ACTIVE', now()
     from generate_series(1, $2::int) i`,
    [ada.deploymentId, ACCOUNTS],
  );
  // What autovacuum would have done for a deployment that grew to this size.
  await sql.query("analyze connected_account");
}, 120_000);
afterAll(async () => {
  await app?.close();
});

/**
 * The statement `run` sends, then its EXPLAIN ANALYZE, rolled back so it writes nothing twice.
 * `generic`: the plan made without the parameters' values, as the recording pool's connections
 * (plan_cache_mode = force_generic_plan) run the accepting statement.
 */
async function planOf(run: (sql: Sql) => Promise<unknown>, { generic = false } = {}): Promise<string> {
  const { sql } = app.database;
  const { recorder, sent } = statementRecorder(sql);
  await run(recorder);
  const statement = sent.at(-1)!;
  return sql.withConnection(async (connection) => {
    await connection.exec("begin");
    try {
      let rows: { "QUERY PLAN": string }[];
      if (generic) {
        const args = await executeArguments(connection, statement.params);
        await connection.exec("set local plan_cache_mode = force_generic_plan");
        await connection.query(`prepare generic_probe as ${statement.text}`);
        rows = await connection.query(`explain (analyze, costs off) execute generic_probe${args}`);
        const [planned] = await connection.query<{ generic_plans: number | string }>("select generic_plans from pg_prepared_statements where name = 'generic_probe'");
        expect(Number(planned.generic_plans)).toBe(1);
      } else {
        rows = await connection.query(`explain (analyze, costs off) ${statement.text}`, statement.params);
      }
      return planText(rows);
    } finally {
      await connection.exec("rollback");
    }
  });
}

/** One GitHub event for the external id `routeBy`. */
const githubEvent = (n: number, routeBy: string) =>
  githubEventToEnqueue(ada.deploymentId, `plan_${n}`, { trigger: "issues_opened", dedupeKey: `plan-routed-${n}`, routeBy: [routeBy] });

// The recording pool, and so the generic plan, exists on a PostgreSQL server only (PGlite has one connection).
const plannings = process.env.TEST_DATABASE_URL ? [false, true] : [false];
test.each(plannings)("recording an event finds its account by the (deployment, connector, external id) index, not by reading the connector's accounts (generic plan: %s)", async (generic) => {
  const plan = await planOf((sql) => enqueue(sql, [githubEvent(generic ? 2 : 1, String(ACCOUNTS - 7))], new Date()), { generic });
  expect(plan).toMatch(/connected_account_deployment_id_connector_external_id_idx/);
  // Executed, that is: the metadata branch's scan shows as "(never executed)" for a connector without one.
  expect(plan).not.toMatch(/Seq Scan on connected_account \w+ \(actual/);
  expect(mostRowsDiscarded(plan)).toBeLessThan(100);
});

test("the claim reads the due queue through its partial index, not the deployment's finished deliveries", async () => {
  const { sql } = app.database;
  // A deployment with history: 5,000 finished deliveries, and 3 due.
  await sql.query(
    `insert into trigger_event (id, deployment_id, connector, trigger, account, payload, occurred_at, dedupe_key)
     select 'evt_history_' || i, $1, 'github', 'issue_opened', 'ada', '{}', now(), 'history-' || i from generate_series(1, 5003) i`,
    [ada.deploymentId],
  );
  await sql.query(
    `insert into delivery (id, event_id, deployment_id, url, status, next_attempt_at, created_at, updated_at, event_received_at)
     select 'dlv_history_' || i, 'evt_history_' || i, $1, 'https://example.com/hook',
            case when i <= 5000 then 'SUCCEEDED'::"DeliveryStatus" else 'PENDING'::"DeliveryStatus" end,
            case when i <= 5000 then null else now() - interval '1 minute' end, now(), now(), now()
     from generate_series(1, 5003) i`,
    [ada.deploymentId],
  );
  await sql.query("analyze delivery");
  const plan = await planOf((recorder) => claim(recorder, 10, 30_000, 64, new Date()));
  expect(plan).toMatch(/delivery_due_idx/);
  expect(mostRowsDiscarded(plan)).toBeLessThan(100);
});
