import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eventLogPage } from "../../src/forwarding/eventLog.ts";
import { SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { until } from "../helpers/live.ts";
import { CancelDelivery, EventLog, PauseForwarding, ResumeForwarding, RetryDelivery } from "../helpers/operations.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { planText } from "../helpers/queryPlans.ts";
import { statementRecorder } from "../helpers/statementRecorder.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The event log's status filter matches the status of each event's latest delivery, found through
 * delivery's own status index in the event log's keyset order, so a filter that matches nothing does
 * not walk every event of the deployment. What the operator sees must stay right as deliveries fail,
 * are retried, succeed, are held and are cancelled.
 */
let app: TestApp;
let receiver: Receiver;
let ada: Operator;
let answer = 410;

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.respond(async () => answer);
  app = await startTestApp({ DELIVERY_RETRY_SCHEDULE: "100ms" }, { worker: true });
  ada = await createOperator(app, "Ada");
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/hook`, triggers: [] } }, { token: ada.token }));
}, 120_000);
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

type Status = "PENDING" | "SUCCEEDED" | "FAILED" | "CANCELLED";
const withStatus = async (status: Status) =>
  ok(await app.gql(EventLog, { id: ada.deploymentId, filter: { status }, first: 50 }, { token: ada.token })).deployment!.eventLog.nodes.map((n) => n.id);

async function statusOf(eventId: string): Promise<string | undefined> {
  const page = ok(await app.gql(EventLog, { id: ada.deploymentId, filter: { id: eventId }, first: 1 }, { token: ada.token })).deployment!.eventLog;
  return page.nodes[0]?.deliveries[0]?.status;
}

describe("filtering the event log by delivery status", () => {
  test("an event moves between FAILED, PENDING, SUCCEEDED and CANCELLED as its delivery does; an unforwarded event matches no status", async () => {
    const send = async () => ok(await app.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { token: ada.token })).sendTestEvent;

    // The endpoint answers 410 Gone: the delivery fails at once.
    const first = await send();
    await until(async () => (await statusOf(first.id)) === "FAILED", "the first delivery to fail");
    expect(await withStatus("FAILED")).toEqual([first.id]);
    expect(await withStatus("SUCCEEDED")).toEqual([]);

    // The operator fixes the endpoint and retries: PENDING, then SUCCEEDED — never listed twice.
    answer = 200;
    ok(await app.gql(RetryDelivery, { id: first.deliveries[0].id }, { token: ada.token }));
    await until(async () => (await statusOf(first.id)) === "SUCCEEDED", "the retried delivery to succeed");
    expect(await withStatus("SUCCEEDED")).toEqual([first.id]);
    expect(await withStatus("FAILED")).toEqual([]);

    // Paused: the next event is held, then cancelled.
    ok(await app.gql(PauseForwarding, { deploymentId: ada.deploymentId }, { token: ada.token }));
    const held = await send();
    expect(await withStatus("PENDING")).toEqual([held.id]);
    ok(await app.gql(CancelDelivery, { id: held.deliveries[0].id }, { token: ada.token }));
    expect(await withStatus("PENDING")).toEqual([]);
    expect(await withStatus("CANCELLED")).toEqual([held.id]);

    // Stored but not forwarded (not in the trigger list): no delivery, so no status.
    const stored = await app.app.recorder.record(ada.deploymentId, {
      connector: "github",
      trigger: "issue_comment_created",
      account: "alice",
      connectedAccountId: null,
      dedupeKey: "alice-1",
      occurredAt: new Date(),
      data: {},
    });
    for (const status of ["PENDING", "SUCCEEDED", "FAILED", "CANCELLED"] as const) expect(await withStatus(status)).not.toContain(stored.eventId);

    ok(await app.gql(ResumeForwarding, { deploymentId: ada.deploymentId }, { token: ada.token }));
    expect(await withStatus("SUCCEEDED")).toEqual([first.id]);
  });
});

describe("in the database", () => {
  test("the status filter walks delivery's status index in keyset order (no scan of the deployment's events)", async () => {
    const { sql } = app.database;
    const { recorder, sent } = statementRecorder(sql);
    await eventLogPage(recorder, ada.deploymentId, { status: "FAILED" }, 1, null);
    expect(sent).toHaveLength(1);
    const plan = await sql.withConnection(async (connection) => {
      await connection.exec("begin; set local enable_seqscan = off");
      try {
        const rows = await connection.query<{ "QUERY PLAN": string }>(`explain ${sent[0].text}`, sent[0].params);
        return planText(rows);
      } finally {
        await connection.exec("rollback");
      }
    });
    expect(plan).toMatch(/delivery_deployment_id_status_event_received_at_event_id_idx/);
    // Ordered by the index itself: no sort, and the events are looked up by id, not walked.
    expect(plan).not.toMatch(/\bSort\b/);
    expect(plan).not.toMatch(/trigger_event_deployment_id_received_at_id_idx/);
  });

  test("the latest delivery decides: a delivery created earlier changing status does not overwrite a later one's", async () => {
    const { sql } = app.database;
    const event = await app.app.recorder.record(ada.deploymentId, {
      connector: "github",
      trigger: "issue_comment_created",
      account: "bob",
      connectedAccountId: null,
      dedupeKey: "bob-1",
      occurredAt: new Date(),
      data: {},
    });
    // What the event log's filter says of this event: the one status it is listed under, if any.
    const status = async () => {
      const statuses = ["PENDING", "SUCCEEDED", "FAILED", "CANCELLED"] as const;
      const listed = [];
      for (const status of statuses) {
        const page = await eventLogPage(sql, ada.deploymentId, { id: event.eventId, status }, 10, null);
        if (page.edges.length > 0) listed.push(status);
      }
      expect(listed.length).toBeLessThanOrEqual(1);
      return listed[0] ?? null;
    };
    expect(await status()).toBeNull();
    await sql.query(
      `insert into delivery (id, event_id, deployment_id, url, status, created_at, updated_at, event_received_at) values
         ('dlv_older', $1, $2, 'https://example.com/a', 'PENDING', now() - interval '1 minute', now(), (select received_at from trigger_event where id = $1)),
         ('dlv_newer', $1, $2, 'https://example.com/b', 'SUCCEEDED', now(), now(), (select received_at from trigger_event where id = $1))`,
      [event.eventId, ada.deploymentId],
    );
    expect(await status()).toBe("SUCCEEDED");
    await sql.query("update delivery set status = 'FAILED' where id = 'dlv_older'");
    expect(await status()).toBe("SUCCEEDED");
    await sql.query("update delivery set status = 'CANCELLED' where id = 'dlv_newer'");
    expect(await status()).toBe("CANCELLED");

    // Both of its deliveries changed by one statement: the later one's status.
    await sql.query("update delivery set status = case when id = 'dlv_newer' then 'FAILED'::\"DeliveryStatus\" else 'SUCCEEDED'::\"DeliveryStatus\" end where id in ('dlv_older', 'dlv_newer')");
    expect(await status()).toBe("FAILED");

    // A new delivery counts only when it is the latest.
    await sql.query(
      `insert into delivery (id, event_id, deployment_id, url, status, created_at, updated_at, event_received_at) values
         ('dlv_oldest', $1, $2, 'https://example.com/c', 'PENDING', now() - interval '2 minutes', now(), (select received_at from trigger_event where id = $1))`,
      [event.eventId, ada.deploymentId],
    );
    expect(await status()).toBe("FAILED");
    await sql.query(
      `insert into delivery (id, event_id, deployment_id, url, status, created_at, updated_at, event_received_at) values
         ('dlv_newest', $1, $2, 'https://example.com/d', 'PENDING', now() + interval '1 minute', now(), (select received_at from trigger_event where id = $1))`,
      [event.eventId, ada.deploymentId],
    );
    expect(await status()).toBe("PENDING");
  });

  test("pages of one status follow the events' order, each event once, however many deliveries it has", async () => {
    const { sql } = app.database;
    const events = [];
    for (const n of [1, 2, 3]) {
      events.push(
        await app.app.recorder.record(ada.deploymentId, {
          connector: "github",
          trigger: "issue_comment_created",
          account: "carol",
          connectedAccountId: null,
          dedupeKey: `carol-${n}`,
          occurredAt: new Date(),
          data: {},
        }),
      );
    }
    // Every event gets a CANCELLED delivery; the middle one a second, later, CANCELLED one too.
    for (const [index, event] of events.entries()) {
      for (const copy of index === 1 ? [0, 1] : [0]) {
        await sql.query(
          `insert into delivery (id, event_id, deployment_id, url, status, created_at, updated_at, event_received_at)
           values ($3, $1, $2, 'https://example.com/p', 'CANCELLED', now() + $4::int * interval '1 second', now(), (select received_at from trigger_event where id = $1))`,
          [event.eventId, ada.deploymentId, `dlv_page_${index}_${copy}`, copy],
        );
      }
    }
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await eventLogPage(sql, ada.deploymentId, { status: "CANCELLED", account: "carol" }, 1, after);
      seen.push(...page.edges.map((edge) => edge.id));
      if (!page.hasNextPage) break;
      after = page.edges[page.edges.length - 1].cursor;
    }
    const order = await sql.query<{ id: string }>(
      "select id from trigger_event where deployment_id = $1 and account = 'carol' order by received_at desc, id desc",
      [ada.deploymentId],
    );
    expect(seen).toEqual(order.map((row) => row.id));
    expect(seen).toHaveLength(events.length);
  });

  test("a status lists the deployment's own events only, though it walks deliveries", async () => {
    const { sql } = app.database;
    const bea = await createOperator(app, "Bea");
    const theirs = await app.app.recorder.record(bea.deploymentId, {
      connector: "github",
      trigger: "issue_comment_created",
      account: "bea",
      connectedAccountId: null,
      dedupeKey: "bea-failed",
      occurredAt: new Date(),
      data: {},
    });
    await sql.query(
      `insert into delivery (id, event_id, deployment_id, url, status, created_at, updated_at, event_received_at)
       values ('dlv_theirs', $1, $2, 'https://example.com/bea', 'FAILED', now(), now(), (select received_at from trigger_event where id = $1))`,
      [theirs.eventId, bea.deploymentId],
    );
    const beaFailed = ok(await app.gql(EventLog, { id: bea.deploymentId, filter: { status: "FAILED" }, first: 50 }, { token: bea.token })).deployment!.eventLog.nodes;
    expect(beaFailed.map((n) => n.id)).toEqual([theirs.eventId]);
    expect(await withStatus("FAILED")).not.toContain(theirs.eventId);
  });
});
