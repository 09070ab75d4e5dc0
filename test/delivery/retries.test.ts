import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { scaled } from "../helpers/timing.ts";
import { DeploymentDeliveries, DeploymentEvents, ReplayDelivery, SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

let app: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  // Paths script the receiver: /fail-twice/…, /gone, /down, /redirect; anything else is 200.
  receiver.respond((request, n) => {
    if (request.path.startsWith("/fail-twice")) return n <= 2 ? 500 : 200;
    if (request.path.startsWith("/gone")) return 410;
    if (request.path.startsWith("/down")) return { status: 503, body: "maintenance ".repeat(1000) };
    if (request.path.startsWith("/redirect")) return { status: 301, headers: { location: `${receiver.url}/ok` } };
    if (request.path.startsWith("/hold")) return receiver.hold(String(request.headers["webhook-id"]));
    return 200;
  });
  app = await startTestApp({ DELIVERY_RETRY_SCHEDULE: "100ms,200ms" }, { worker: true });
});
afterAll(async () => {
  await app.close();
  await receiver.close();
});

/** An operator whose development deployment forwards to `path` on the receiver. */
async function operatorForwardingTo(path: string, name = "Ada"): Promise<Operator> {
  const operator = await createOperator(app, name);
  ok(await app.gql(SaveForwardingSettings, { deploymentId: operator.deploymentId, input: { forwardingUrl: `${receiver.url}${path}`, triggers: [] } }, { token: operator.token }));
  return operator;
}

async function sendTest(operator: Operator, trigger = { connector: "github", trigger: "issue_opened" }) {
  return ok(await app.gql(SendTestEvent, { deploymentId: operator.deploymentId, trigger }, { token: operator.token })).sendTestEvent;
}

async function deliveries(operator: Operator, status?: "PENDING" | "SUCCEEDED" | "FAILED") {
  return ok(await app.gql(DeploymentDeliveries, { id: operator.deploymentId, status }, { token: operator.token })).deployment!.deliveries;
}

/** Polls the API (as the console would) until the delivery settles, for at most 30 s (scaled). */
async function settled(operator: Operator, eventId: string) {
  const deadline = Date.now() + scaled(30_000);
  for (;;) {
    const delivery = (await deliveries(operator)).find((d) => d.event.id === eventId);
    if (delivery && delivery.status !== "PENDING") return delivery;
    if (Date.now() > deadline) throw new Error(`delivery of ${eventId} did not settle within 30 s: ${JSON.stringify(delivery)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("retries", () => {
  test("a target that fails twice gets the event on the third try, same webhook-id each time", async () => {
    const operator = await operatorForwardingTo("/fail-twice/a");
    const event = await sendTest(operator);
    const delivery = await settled(operator, event.id);
    expect(delivery).toMatchObject({ status: "SUCCEEDED", attempts: 3, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
    expect(delivery.completedAt).not.toBeNull();
    expect(delivery.attemptLog.map((a) => a.statusCode)).toEqual([500, 500, 200]);
    expect(delivery.attemptLog.map((a) => a.number)).toEqual([1, 2, 3]);
    expect(delivery.attemptLog[0].responseBody).toBe("status 500");
    const requests = receiver.byEventId(event.id);
    expect(requests.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
  });

  test("410 Gone stops at once", async () => {
    const operator = await operatorForwardingTo("/gone");
    const event = await sendTest(operator);
    const delivery = await settled(operator, event.id);
    expect(delivery).toMatchObject({ status: "FAILED", attempts: 1, lastStatusCode: 410 });
    expect(delivery.lastError).toMatch(/410/);
    expect(receiver.byEventId(event.id)).toHaveLength(1);
  });

  test("a target that stays down: FAILED once the schedule is used up; the log keeps the first 4 KiB of each answer", async () => {
    const operator = await operatorForwardingTo("/down");
    const event = await sendTest(operator);
    const delivery = await settled(operator, event.id);
    expect(delivery).toMatchObject({ status: "FAILED", attempts: 3, lastStatusCode: 503 });
    expect(delivery.attemptLog).toHaveLength(3);
    for (const attempt of delivery.attemptLog) {
      expect(attempt.statusCode).toBe(503);
      expect(Buffer.byteLength(attempt.responseBody!)).toBe(4096);
    }
    expect(await deliveries(operator, "FAILED")).toHaveLength(1);
    expect(await deliveries(operator, "SUCCEEDED")).toHaveLength(0);
  });

  test("redirects are not followed: they count as failures", async () => {
    const operator = await operatorForwardingTo("/redirect");
    const event = await sendTest(operator);
    const delivery = await settled(operator, event.id);
    expect(delivery).toMatchObject({ status: "FAILED", attempts: 3, lastStatusCode: 301 });
    expect(receiver.requests.filter((r) => r.path === "/ok" && r.headers["webhook-id"] === event.id)).toEqual([]);
  });

  test("an unreachable target is logged as an error with no status", async () => {
    const operator = await createOperator(app, "Ada");
    // A port nobody listens on: the receiver's own port after it is closed would race, so use port 9 (discard), closed here.
    ok(await app.gql(SaveForwardingSettings, { deploymentId: operator.deploymentId, input: { forwardingUrl: "http://127.0.0.1:9/", triggers: [] } }, { token: operator.token }));
    const event = await sendTest(operator);
    const delivery = await settled(operator, event.id);
    expect(delivery).toMatchObject({ status: "FAILED", attempts: 3, lastStatusCode: null });
    expect(delivery.attemptLog[0].error).toMatch(/ECONNREFUSED/);
  });
});

describe("replay and test events", () => {
  test("a test event carries the trigger's sample payload for account \"test\", even when the trigger is not listed", async () => {
    const operator = await operatorForwardingTo("/ok/test");
    const event = await sendTest(operator, { connector: "slack", trigger: "reaction_added" });
    expect(event).toMatchObject({ type: "slack.reaction_added", account: "test" });
    expect(event.deliveries).toHaveLength(1);
    await receiver.waitFor(() => receiver.byEventId(event.id).length === 1);
    const body = JSON.parse(receiver.byEventId(event.id)[0].body);
    expect(body).toMatchObject({ id: event.id, type: "slack.reaction_added", account: "test", deploymentId: operator.deploymentId });
    expect(body.data).toEqual(event.payload);

    const listed = ok(await app.gql(DeploymentEvents, { id: operator.deploymentId, trigger: { connector: "slack", trigger: "reaction_added" } }, { token: operator.token }));
    expect(listed.deployment!.events.map((e) => e.id)).toEqual([event.id]);
    const other = ok(await app.gql(DeploymentEvents, { id: operator.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { token: operator.token }));
    expect(other.deployment!.events).toEqual([]);
  });

  test("a test event needs a real trigger", async () => {
    const configured = await operatorForwardingTo("/ok/x");
    const unknown = await app.gql(SendTestEvent, { deploymentId: configured.deploymentId, trigger: { connector: "github", trigger: "nope" } }, { token: configured.token });
    expect(errorCode(unknown)).toBe("BAD_USER_INPUT");
  });

  test("a failed delivery is replayed to the fixed URL with the same webhook-id and body", async () => {
    const operator = await operatorForwardingTo("/gone/replay");
    const event = await sendTest(operator);
    const failed = await settled(operator, event.id);
    expect(failed.status).toBe("FAILED");

    // The receiver is fixed: its address now answers 200.
    ok(await app.gql(SaveForwardingSettings, { deploymentId: operator.deploymentId, input: { forwardingUrl: `${receiver.url}/ok/replay`, triggers: [] } }, { token: operator.token }));
    const { replayDelivery } = ok(await app.gql(ReplayDelivery, { id: failed.id }, { token: operator.token }));
    // Queued again: the answer reads the row after the replay, by when this instance's worker may already have sent it.
    expect(replayDelivery).toMatchObject({ id: failed.id, event: { id: event.id } });
    expect(["PENDING", "SUCCEEDED"]).toContain(replayDelivery.status);
    const succeeded = await settled(operator, event.id);
    // A replay goes to the forwarding URL of now: the operator fixed it, then replayed.
    expect(succeeded).toMatchObject({ status: "SUCCEEDED", attempts: 2, url: `${receiver.url}/ok/replay` });
    expect(succeeded.attemptLog.map((a) => a.statusCode)).toEqual([410, 200]);
    const requests = receiver.byEventId(event.id);
    expect(requests.map((r) => r.path)).toEqual(["/gone/replay", "/ok/replay"]);
    expect(requests[1].body).toBe(requests[0].body);

  });

  test("a delivery that is still pending cannot be replayed", async () => {
    const operator = await operatorForwardingTo("/hold");
    const event = await sendTest(operator);
    await receiver.waitFor(() => receiver.holding.has(event.id));
    const [delivery] = await deliveries(operator, "PENDING");
    const refused = await app.gql(ReplayDelivery, { id: delivery.id }, { token: operator.token });
    expect(errorCode(refused)).toBe("BAD_USER_INPUT");
    receiver.release(event.id);
    expect((await settled(operator, event.id)).status).toBe("SUCCEEDED");
  });

  test("a succeeded delivery is replayed to the operator again", async () => {
    const operator = await operatorForwardingTo("/ok/twice");
    const event = await sendTest(operator);
    const first = await settled(operator, event.id);
    expect(first.status).toBe("SUCCEEDED");
    ok(await app.gql(ReplayDelivery, { id: first.id }, { token: operator.token }));
    await receiver.waitFor(() => receiver.byEventId(event.id).length === 2);
    const second = await settled(operator, event.id);
    expect(second).toMatchObject({ status: "SUCCEEDED", attempts: 2 });
    const [a, b] = receiver.byEventId(event.id);
    expect(b.headers["webhook-id"]).toBe(a.headers["webhook-id"]);
    expect(b.body).toBe(a.body);
  });
});

describe("tenancy of events, deliveries, replay and test events", () => {
  test("another organization's user, another deployment's API key and nobody are refused", async () => {
    const ada = await operatorForwardingTo("/ok/tenancy", "Ada");
    const bob = await createOperator(app, "Bob");
    const event = await sendTest(ada);
    const delivery = await settled(ada, event.id);

    for (const [caller, code, nested] of [
      [{ token: bob.token }, "FORBIDDEN", "NOT_FOUND"],
      [{ apiKey: bob.apiKey }, "FORBIDDEN", "NOT_FOUND"],
      [{}, "UNAUTHENTICATED", "UNAUTHENTICATED"],
    ] as const) {
      expect(errorCode(await app.gql(DeploymentDeliveries, { id: ada.deploymentId }, caller))).toBe(code);
      expect(errorCode(await app.gql(DeploymentEvents, { id: ada.deploymentId }, caller))).toBe(code);
      expect(errorCode(await app.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, caller))).toBe(code);
      expect(errorCode(await app.gql(ReplayDelivery, { id: delivery.id }, caller))).toBe(nested);
    }
    // Her own API key may do all of it; her key is not valid for her production deployment.
    expect(ok(await app.gql(ReplayDelivery, { id: delivery.id }, { apiKey: ada.apiKey })).replayDelivery.id).toBe(delivery.id);
    expect(errorCode(await app.gql(DeploymentDeliveries, { id: ada.productionDeploymentId }, { apiKey: ada.apiKey }))).toBe("FORBIDDEN");
    expect(errorCode(await app.gql(ReplayDelivery, { id: "dlv_does_not_exist" }, { token: ada.token }))).toBe("NOT_FOUND");
  });

  test("paging arguments are checked", async () => {
    const ada = await operatorForwardingTo("/ok/paging");
    for (const args of [{ limit: 0 }, { limit: 101 }, { offset: -1 }]) {
      expect(errorCode(await app.gql(DeploymentDeliveries, { id: ada.deploymentId, ...args }, { token: ada.token }))).toBe("BAD_USER_INPUT");
      expect(errorCode(await app.gql(DeploymentEvents, { id: ada.deploymentId, ...args }, { token: ada.token }))).toBe("BAD_USER_INPUT");
    }
  });
});
