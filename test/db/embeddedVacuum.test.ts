import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { enqueue, type EventToEnqueue } from "../../src/delivery/queue/enqueue.ts";
import { recordAttempts } from "../../src/delivery/queue/recordAttempts.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The embedded database has no autovacuum of its own (PGlite: single-user mode, no launcher), so
 * the app vacuums it: without that, every finished delivery's old row version stays in the
 * delivery table's indexes for good, and each claim reads past all of them (src/db/embeddedVacuum.ts).
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const HOOK = "https://example.com/hook";
const FINISHED = 2_000;

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({}, { worker: false, poller: false });
}, 120_000);
afterAll(async () => {
  await app?.close();
});

test.skipIf(!onPostgres)("on PostgreSQL the app leaves vacuuming to the server's autovacuum", () => {
  expect(app.app.createEmbeddedVacuum()).toBeUndefined();
});

describe.skipIf(onPostgres)("on the embedded database", () => {
  /** Pages the claim's first step reads: the due deliveries, through the due index from its oldest end. */
  const dueScanPages = async () => {
    const plan = await app.database.sql.query<{ "QUERY PLAN": string }>(
      "explain (analyze, buffers, costs off) select id from delivery where status = 'PENDING' and next_attempt_at <= now() order by next_attempt_at limit 40",
    );
    const text = plan.map((row) => row["QUERY PLAN"]).join("\n");
    expect(text).toContain("delivery_due_idx");
    return Number(/Buffers: shared hit=(\d+)/.exec(text)?.[1] ?? 0);
  };
  const deadRows = async () => {
    await app.database.sql.query("select pg_stat_force_next_flush()");
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
    const event = (n: number): EventToEnqueue => ({
      eventId: `evt_vacuum_${n}`,
      deliveryId: `dlv_vacuum_${n}`,
      deploymentId: ada.deploymentId,
      connectedAccountId: null,
      connector: "github",
      trigger: "issue_opened",
      account: "",
      payload: '{"action":"opened"}',
      occurredAt: new Date(),
      dedupeKey: `vacuum-${n}`,
      forwardUnlisted: false,
      routeBy: ["583231"],
      routeByMetadata: null,
      bodyClaim: null,
    });
    for (let first = 0; first < FINISHED; first += 200) {
      const rows = await enqueue(sql, Array.from({ length: 200 }, (_, i) => event(first + i)), new Date(), { slots: 200, perUrl: 1_000, inFlight: new Map(), leaseMs: 30_000 });
      const now = new Date();
      await recordAttempts(
        sql,
        rows.map((row) => ({
          id: row.delivery_id!,
          status: "SUCCEEDED" as const,
          delayMs: 0,
          statusCode: 200,
          lastError: null,
          attemptId: `att_${row.delivery_id}`,
          url: HOOK,
          startedAt: now.toISOString(),
          durationMs: 3,
          error: null,
          responseBody: null,
          retryAfterSeconds: null,
        })),
        60_000,
        now,
      );
    }
  }, 120_000);

  test("a pass vacuums the tables past PostgreSQL's thresholds, and the claim's due scan reads past no finished delivery", async () => {
    expect(await deadRows()).toBeGreaterThanOrEqual(FINISHED / 2);
    const before = await dueScanPages();

    const vacuum = app.app.createEmbeddedVacuum()!;
    const done = await vacuum.runOnce();

    expect(done).toContainEqual({ table: "public.delivery", action: "vacuum" });
    expect(await deadRows()).toBe(0);
    const after = await dueScanPages();
    expect(before).toBeGreaterThan(5 * Math.max(1, after));
    // Nothing is past a threshold any more: the next pass does nothing.
    expect(await vacuum.runOnce()).toEqual([]);
  }, 60_000);
});
