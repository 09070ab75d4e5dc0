import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DeploymentDeliveries, SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { CancelDelivery, DeliveryStatsQuery, EventLog, PauseForwarding } from "../helpers/operations.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * Finding things and seeing health: the event log's keyset pages and filters, and deliveryStats'
 * numbers checked against the deliveries and attempts the API itself reports.
 *
 * One deployment gets 7 github.issue_opened test events delivered to a slow-ish receiver
 * (SUCCEEDED), 3 slack.reaction_added ones answered 410 (FAILED), then — paused — 2 more held
 * (PENDING), one of which is cancelled, and 4 events of account "alice" stored unforwarded.
 */
let app: TestApp;
let receiver: Receiver;
let operator: Operator;
const ids = { succeeded: [] as string[], failed: [] as string[], pending: [] as string[], cancelled: [] as string[], alice: [] as string[] };

beforeAll(async () => {
  receiver = await startReceiver();
  // Different answer times, so the latency percentiles have something to order.
  receiver.respond(async (request, n) => {
    if (request.path.startsWith("/gone")) return 410;
    await new Promise((resolve) => setTimeout(resolve, 10 * n + Number(request.path.split("/").at(-1) ?? 0)));
    return 200;
  });
  app = await startTestApp({ DELIVERY_RETRY_SCHEDULE: "100ms" }, { worker: true });
  operator = await createOperator(app, "Ada");
  const forwardTo = (path: string) =>
    app.gql(SaveForwardingSettings, { deploymentId: operator.deploymentId, input: { forwardingUrl: `${receiver.url}${path}`, triggers: [] } }, { token: operator.token });
  const send = async (connector: string, trigger: string) =>
    ok(await app.gql(SendTestEvent, { deploymentId: operator.deploymentId, trigger: { connector, trigger } }, { token: operator.token })).sendTestEvent;
  const settle = async (count: number) => {
    for (;;) {
      const { deployment } = ok(await app.gql(DeploymentDeliveries, { id: operator.deploymentId, limit: 100 }, { token: operator.token }));
      if (deployment!.deliveries.filter((d) => d.status !== "PENDING").length >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  ok(await forwardTo("/ok/20"));
  for (let i = 0; i < 7; i++) ids.succeeded.push((await send("github", "issue_opened")).id);
  await settle(7);
  ok(await forwardTo("/gone"));
  for (let i = 0; i < 3; i++) ids.failed.push((await send("slack", "reaction_added")).id);
  await settle(10);
  ok(await app.gql(PauseForwarding, { deploymentId: operator.deploymentId }, { token: operator.token }));
  for (let i = 0; i < 2; i++) ids.pending.push((await send("github", "issue_closed")).id);
  const cancelled = ok(await app.gql(SendTestEvent, { deploymentId: operator.deploymentId, trigger: { connector: "jira", trigger: "issue_created" } }, { token: operator.token }));
  ok(await app.gql(CancelDelivery, { id: cancelled.sendTestEvent.deliveries[0].id }, { token: operator.token }));
  ids.cancelled.push(cancelled.sendTestEvent.id);
  for (let i = 0; i < 4; i++) {
    const recorded = await app.app.recorder.record(operator.deploymentId, {
      connector: "github",
      trigger: "issue_comment_created",
      account: "alice",
      connectedAccountId: null,
      dedupeKey: `alice-${i}`,
      occurredAt: new Date(),
      data: { n: i },
    });
    ids.alice.push(recorded.eventId);
    // Distinct acceptance times, so "newest first" has one right answer (ties fall back to the id).
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}, 120_000);
afterAll(async () => {
  await app.close();
  await receiver.close();
});

const all = () => [...ids.succeeded, ...ids.failed, ...ids.pending, ...ids.cancelled, ...ids.alice];

async function log(variables: { filter?: object; first?: number; after?: string }) {
  return ok(await app.gql(EventLog, { id: operator.deploymentId, ...variables }, { token: operator.token })).deployment!.eventLog;
}

describe("eventLog", () => {
  test("pages newest first, with cursors, until hasNextPage is false; edges and nodes agree", async () => {
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await log({ first: 4, after });
      expect(page.edges.map((e) => e.node.id)).toEqual(page.nodes.map((n) => n.id));
      seen.push(...page.nodes.map((n) => n.id));
      pages++;
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor!;
      expect(page.edges.at(-1)!.cursor).toBe(after);
    }
    expect(pages).toBe(5); // 17 events, 4 a page
    expect(seen).toEqual([...all()].reverse());
    const times = (await log({ first: 50 })).edges.map((e) => Date.parse(e.node.receivedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  test("filters by the latest delivery's status, connector, trigger, account and time range, and finds one event by id", async () => {
    const idsOf = async (filter: object) => (await log({ filter, first: 50 })).nodes.map((n) => n.id);
    expect(await idsOf({ status: "SUCCEEDED" })).toEqual([...ids.succeeded].reverse());
    expect(await idsOf({ status: "FAILED" })).toEqual([...ids.failed].reverse());
    expect(await idsOf({ status: "PENDING" })).toEqual([...ids.pending].reverse());
    expect(await idsOf({ status: "CANCELLED" })).toEqual(ids.cancelled);
    expect(await idsOf({ connector: "slack" })).toEqual([...ids.failed].reverse());
    expect(await idsOf({ connector: "github", trigger: "issue_closed" })).toEqual([...ids.pending].reverse());
    expect(await idsOf({ account: "alice" })).toEqual([...ids.alice].reverse());
    expect(await idsOf({ account: "alice", status: "PENDING" })).toEqual([]); // stored, never forwarded
    expect(await idsOf({ id: ids.failed[1] })).toEqual([ids.failed[1]]);

    const page = (await log({ first: 50 })).edges;
    const at = (id: string) => page.find((e) => e.node.id === id)!.node.receivedAt;
    const window = await idsOf({ since: at(ids.failed[0]), until: at(ids.pending[1]) });
    expect(window).toEqual([...ids.failed, ...ids.pending].reverse());
    // Filters and cursors together: the second page of the github events.
    const first = await log({ filter: { connector: "github" }, first: 5 });
    const second = await log({ filter: { connector: "github" }, first: 5, after: first.pageInfo.endCursor! });
    expect([...first.nodes, ...second.nodes].map((n) => n.id)).toEqual([...ids.succeeded, ...ids.pending, ...ids.alice].reverse().slice(0, 10));
  });

  test("bad arguments are BAD_USER_INPUT", async () => {
    const bad = async (variables: object) => errorCode(await app.gql(EventLog, { id: operator.deploymentId, ...variables }, { token: operator.token }));
    expect(await bad({ after: "not-a-cursor" })).toBe("BAD_USER_INPUT");
    expect(await bad({ first: 0 })).toBe("BAD_USER_INPUT");
    expect(await bad({ first: 201 })).toBe("BAD_USER_INPUT");
    expect(await bad({ filter: { since: "yesterday" } })).toBe("BAD_USER_INPUT");
  });
});

describe("deliveryStats", () => {
  test("counts the window's deliveries by status, with success rate, latency percentiles and the queue", async () => {
    const { deployment } = ok(await app.gql(DeploymentDeliveries, { id: operator.deploymentId, limit: 100 }, { token: operator.token }));
    const durations = deployment!.deliveries.flatMap((d) => d.attemptLog.map((a) => a.durationMs)).sort((a, b) => a - b);
    // percentile_disc: the smallest observed value whose cumulative share reaches p.
    const disc = (p: number) => durations[Math.max(0, Math.ceil(p * durations.length) - 1)];
    const oldestPending = deployment!.deliveries
      .filter((d) => d.status === "PENDING")
      .map((d) => d.createdAt)
      .sort()[0];

    const stats = ok(await app.gql(DeliveryStatsQuery, { id: operator.deploymentId, hours: 3 }, { token: operator.token })).deployment!.deliveryStats;
    expect(stats).toMatchObject({ hours: 3, succeeded: 7, failed: 3, pending: 2, cancelled: 1, queueDepth: 2, successRate: 0.7 });
    expect(durations).toHaveLength(10); // one attempt each: 7 successes, 3 410s
    expect(stats.p50Ms).toBe(disc(0.5));
    expect(stats.p95Ms).toBe(disc(0.95));
    expect(stats.oldestPendingAt).toBe(oldestPending);

    expect(stats.buckets).toHaveLength(3);
    const hour = 3_600_000;
    const starts = stats.buckets.map((b) => Date.parse(b.start));
    expect(starts.every((s) => s % hour === 0)).toBe(true);
    expect(starts[1] - starts[0]).toBe(hour);
    expect(starts[2]).toBe(Math.floor(Date.now() / hour) * hour);
    const sum = (key: "succeeded" | "failed" | "pending") => stats.buckets.reduce((total, b) => total + b[key], 0);
    expect([sum("succeeded"), sum("failed"), sum("pending")]).toEqual([7, 3, 2]);
  });

  test("an empty window has no rate and no latency; hours is bounded", async () => {
    const fresh = await createOperator(app, "Bea");
    const stats = ok(await app.gql(DeliveryStatsQuery, { id: fresh.deploymentId }, { token: fresh.token })).deployment!.deliveryStats;
    expect(stats).toMatchObject({ hours: 24, succeeded: 0, failed: 0, pending: 0, successRate: null, p50Ms: null, p95Ms: null, oldestPendingAt: null });
    expect(stats.buckets).toHaveLength(24);
    expect(errorCode(await app.gql(DeliveryStatsQuery, { id: fresh.deploymentId, hours: 0 }, { token: fresh.token }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await app.gql(DeliveryStatsQuery, { id: fresh.deploymentId, hours: 10_000 }, { token: fresh.token }))).toBe("BAD_USER_INPUT");
  });
});
