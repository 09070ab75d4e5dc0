import { afterAll, beforeAll, expect, test } from "vitest";
import type { Sql } from "../../src/db/sql.ts";
import { enqueue, type EventToEnqueue } from "../../src/delivery/queue/enqueue.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The accepting statement, asked how it runs on a deployment that grew: it was once fast on empty
 * tables and slow on real ones, routing each event by scanning every account of its connector
 * (5.7 ms per event at 10,000 accounts). It runs once for real, then EXPLAIN ANALYZE runs it again
 * inside a transaction that is rolled back. (The claim's old quadratic plan — the due backlog joined
 * to its ranked rows — and the replay check's prune hashing a window's claims on every batch were
 * seen in the service's cached generic plans, which EXPLAIN with values does not reproduce; no test
 * pretends to guard them, and the statements say why they are written as they are.)
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

/** The statement `run` sends, then its EXPLAIN ANALYZE, rolled back so it writes nothing twice. */
async function planOf(run: (sql: Sql) => Promise<unknown>): Promise<string> {
  const { sql } = app.database;
  let sent: { text: string; params: unknown[] } | undefined;
  const recorder: Sql = {
    query: (text, params, name) => {
      sent = { text, params: params ?? [] };
      return sql.query(text, params, name);
    },
    withConnection: (work) => sql.withConnection(work),
  };
  await run(recorder);
  const statement = sent!;
  return sql.withConnection(async (connection) => {
    await connection.exec("begin");
    try {
      const rows = await connection.query<{ "QUERY PLAN": string }>(`explain (analyze, costs off) ${statement.text}`, statement.params);
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    } finally {
      await connection.exec("rollback");
    }
  });
}

/** The largest "Rows Removed by …" of a plan: how many rows some node read only to throw away. */
const mostRowsDiscarded = (plan: string) => Math.max(0, ...[...plan.matchAll(/Rows Removed by [\w ]+: (\d+)/g)].map((match) => Number(match[1])));

/** One GitHub event for the external id `routeBy`. */
const githubEvent = (n: number, routeBy: string): EventToEnqueue => ({
  eventId: `evt_plan_${n}`,
  deliveryId: `dlv_plan_${n}`,
  deploymentId: ada.deploymentId,
  connectedAccountId: null,
  connector: "github",
  trigger: "issues_opened",
  account: "",
  payload: "{}",
  occurredAt: new Date(),
  dedupeKey: `plan-routed-${n}`,
  forwardUnlisted: false,
  routeBy: [routeBy],
  routeByMetadata: null,
  bodyClaim: null,
});

test("recording an event finds its account by the (deployment, connector, external id) index, not by reading the connector's accounts", async () => {
  const plan = await planOf((sql) => enqueue(sql, [githubEvent(1, String(ACCOUNTS - 7))], new Date()));
  expect(plan).toMatch(/connected_account_deployment_id_connector_external_id_idx/);
  // Executed, that is: the metadata branch's scan shows as "(never executed)" for a connector without one.
  expect(plan).not.toMatch(/Seq Scan on connected_account \w+ \(actual/);
  expect(mostRowsDiscarded(plan)).toBeLessThan(100);
});
