import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { scaled } from "../helpers/timing.ts";
import { SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import {
  CancelDelivery,
  EventDelivery,
  ForwardingStatusQuery,
  PauseForwarding,
  ResumeForwarding,
  RetryDelivery,
  RetryFailedDeliveries,
} from "../helpers/operations.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { fakeClock } from "../helpers/clock.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * An operator steering a misbehaving endpoint: pause and resume, retry one now, cancel one, retry
 * every failure since a time, fix the URL and see the backlog follow it, and the automatic disable
 * after FORWARDING_DISABLE_AFTER of failures. Real service, real receiver, fast retry schedules.
 */

let app: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  // Paths script the receiver: /fail… 500, /gone 410, /hold… waits for release(); anything else is 200.
  receiver.respond((request) => {
    if (request.path.startsWith("/fail")) return { status: 500, body: "broken" };
    if (request.path.startsWith("/gone")) return 410;
    if (request.path.startsWith("/hold")) return receiver.hold(String(request.headers["webhook-id"]));
    return 200;
  });
  app = await startTestApp({ DELIVERY_RETRY_SCHEDULE: "100ms,200ms" }, { worker: true });
});
afterAll(async () => {
  await app.close();
  await receiver.close();
});

async function forwardTo(operator: Operator, path: string, on: TestApp = app) {
  return ok(
    await on.gql(SaveForwardingSettings, { deploymentId: operator.deploymentId, input: { forwardingUrl: `${receiver.url}${path}`, triggers: [] } }, { token: operator.token }),
  ).saveForwardingSettings;
}

async function operatorForwardingTo(path: string, on: TestApp = app): Promise<Operator> {
  const operator = await createOperator(on, "Ada");
  await forwardTo(operator, path, on);
  return operator;
}

async function sendTest(operator: Operator, on: TestApp = app) {
  return ok(await on.gql(SendTestEvent, { deploymentId: operator.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { token: operator.token }))
    .sendTestEvent;
}

async function deliveryOf(operator: Operator, eventId: string, on: TestApp = app) {
  const { deployment } = ok(await on.gql(EventDelivery, { id: operator.deploymentId, eventId }, { token: operator.token }));
  return deployment!.eventLog.nodes[0].deliveries[0];
}

/**
 * Polls the API (as the console would) until the delivery satisfies `done`, for at most 20 s
 * (scaled). `tick` runs between polls: an app on a fake clock moves it there, so retries come due.
 */
async function until(
  operator: Operator,
  eventId: string,
  done: (d: Awaited<ReturnType<typeof deliveryOf>>) => boolean,
  on: TestApp = app,
  tick?: () => void,
) {
  const deadline = Date.now() + scaled(20_000);
  for (;;) {
    const delivery = await deliveryOf(operator, eventId, on);
    if (done(delivery)) return delivery;
    if (Date.now() > deadline) throw new Error(`delivery of ${eventId} did not settle as expected: ${JSON.stringify(delivery)}`);
    tick?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Past every step of the main app's retry schedule (100 ms, 200 ms). */
const PAST_THE_SCHEDULE_MS = 250;
/**
 * Held, not merely not sent yet: once `pastMs` has gone by (so that whatever a wrong schedule would
 * have made due is due), a claim round of the worker's own attempts everything due, so what it did
 * not send was held. Instead of waiting for the polling worker to come by several times.
 */
async function claimRound(on: TestApp = app, pastMs = PAST_THE_SCHEDULE_MS) {
  await new Promise((resolve) => setTimeout(resolve, pastMs));
  await on.worker!.runOnce();
}

describe("pause and resume", () => {
  test("while paused, events are recorded and held; resume sends them, oldest first", async () => {
    const operator = await operatorForwardingTo("/paused");
    const paused = ok(await app.gql(PauseForwarding, { deploymentId: operator.deploymentId }, { token: operator.token })).pauseForwarding;
    expect(paused).toMatchObject({ status: "PAUSED", disabledReason: null });
    expect(paused.statusChangedAt).not.toBeNull();

    const events = [];
    for (let i = 0; i < 3; i++) events.push(await sendTest(operator));
    await claimRound();
    for (const event of events) {
      expect(receiver.byEventId(event.id)).toEqual([]);
      expect(await deliveryOf(operator, event.id)).toMatchObject({ status: "PENDING", attempts: 0, nextAttemptAt: null });
    }

    const resumed = ok(await app.gql(ResumeForwarding, { deploymentId: operator.deploymentId }, { apiKey: operator.apiKey })).resumeForwarding;
    expect(resumed.status).toBe("ACTIVE");
    for (const event of events) expect((await until(operator, event.id, (d) => d.status !== "PENDING")).status).toBe("SUCCEEDED");
    // Oldest first: the attempts started in the order the events were accepted.
    const starts = [];
    for (const event of events) starts.push(Date.parse((await deliveryOf(operator, event.id)).attemptLog[0].startedAt));
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
  });

  test("a delivery whose attempt is in flight when forwarding is paused records the attempt, then waits for resume", async () => {
    const operator = await operatorForwardingTo("/hold/pause");
    const event = await sendTest(operator);
    await receiver.waitFor(() => receiver.holding.has(event.id));
    ok(await app.gql(PauseForwarding, { deploymentId: operator.deploymentId }, { token: operator.token }));
    receiver.release(event.id, 503);
    const held = await until(operator, event.id, (d) => d.attempts === 1);
    expect(held).toMatchObject({ status: "PENDING", lastStatusCode: 503, nextAttemptAt: null });
    await claimRound(); // its 100 ms retry would have come and gone
    expect(receiver.byEventId(event.id)).toHaveLength(1);

    await forwardTo(operator, "/ok/after-pause");
    expect(receiver.byEventId(event.id)).toHaveLength(1); // a new URL while paused is still held
    ok(await app.gql(ResumeForwarding, { deploymentId: operator.deploymentId }, { token: operator.token }));
    const done = await until(operator, event.id, (d) => d.status !== "PENDING");
    expect(done).toMatchObject({ status: "SUCCEEDED", attempts: 2 });
    expect(done.attemptLog.map((a) => a.url)).toEqual([`${receiver.url}/hold/pause`, `${receiver.url}/ok/after-pause`]);
  });

  test("pausing needs saved settings", async () => {
    const operator = await createOperator(app, "Ada");
    expect(errorCode(await app.gql(PauseForwarding, { deploymentId: operator.deploymentId }, { token: operator.token }))).toBe("BAD_USER_INPUT");
  });
});

describe("retry now, cancel, retry failed", () => {
  test("a fixed URL re-targets the pending backlog, due at once; retry-now attempts a pending delivery now", async () => {
    const slow = await startTestApp({ DELIVERY_RETRY_SCHEDULE: "1h,1h,1h" }, { worker: true });
    try {
      const operator = await operatorForwardingTo("/fail/wrong-url", slow);
      const first = await sendTest(operator, slow);
      const waiting = await until(operator, first.id, (d) => d.attempts === 1, slow);
      expect(waiting.status).toBe("PENDING"); // next try in an hour

      // retry-now: attempted at once, not in an hour (it fails again: the URL is still wrong).
      const asked = Date.now();
      const retried = ok(await slow.gql(RetryDelivery, { id: waiting.id }, { token: operator.token })).retryDelivery;
      expect(retried.status).toBe("PENDING");
      // The answer shows it due now, or — the worker being quick — the attempt it already caused.
      if (retried.attempts === 1) expect(Date.parse(retried.nextAttemptAt!)).toBeLessThanOrEqual(Date.now() + 1000);
      else expect(retried.attempts).toBe(2);
      const second = await until(operator, first.id, (d) => d.attempts === 2, slow);
      expect(Date.parse(second.attemptLog[1].startedAt)).toBeLessThan(asked + scaled(10_000));

      // The operator fixes the URL: the pending delivery goes to it at once.
      await forwardTo(operator, "/ok/fixed", slow);
      const done = await until(operator, first.id, (d) => d.status !== "PENDING", slow);
      expect(done).toMatchObject({ status: "SUCCEEDED", attempts: 3, url: `${receiver.url}/ok/fixed` });
      expect(done.attemptLog.map((a) => a.url)).toEqual([`${receiver.url}/fail/wrong-url`, `${receiver.url}/fail/wrong-url`, `${receiver.url}/ok/fixed`]);
      expect(receiver.byEventId(first.id).map((r) => r.path)).toEqual(["/fail/wrong-url", "/fail/wrong-url", "/ok/fixed"]);
    } finally {
      await slow.close();
    }
  });

  test("retrying a FAILED delivery starts a whole new cycle of attempts, to the URL in force", async () => {
    const operator = await operatorForwardingTo("/fail/cycle");
    const event = await sendTest(operator);
    const failed = await until(operator, event.id, (d) => d.status === "FAILED");
    expect(failed.attempts).toBe(3); // the first try and the two retries of "100ms,200ms"

    // Still failing: the new cycle is three more attempts, then FAILED again.
    ok(await app.gql(RetryDelivery, { id: failed.id }, { token: operator.token }));
    const again = await until(operator, event.id, (d) => d.status === "FAILED" && d.attempts === 6);
    expect(again.attemptLog.map((a) => a.number)).toEqual([1, 2, 3, 4, 5, 6]);

    await forwardTo(operator, "/ok/cycle");
    const retried = ok(await app.gql(RetryDelivery, { id: failed.id }, { token: operator.token })).retryDelivery;
    expect(retried.url).toBe(`${receiver.url}/ok/cycle`);
    expect((await until(operator, event.id, (d) => d.status !== "PENDING"))).toMatchObject({ status: "SUCCEEDED", attempts: 7 });
  });

  test("succeeded and cancelled deliveries cannot be retried; only pending ones can be cancelled", async () => {
    const operator = await operatorForwardingTo("/ok/refusals");
    const event = await sendTest(operator);
    const succeeded = await until(operator, event.id, (d) => d.status === "SUCCEEDED");
    const retry = await app.gql(RetryDelivery, { id: succeeded.id }, { token: operator.token });
    expect(errorCode(retry)).toBe("BAD_USER_INPUT");
    expect(retry.errors![0].message).toMatch(/already succeeded/);
    expect(errorCode(await app.gql(CancelDelivery, { id: succeeded.id }, { token: operator.token }))).toBe("BAD_USER_INPUT");

    ok(await app.gql(PauseForwarding, { deploymentId: operator.deploymentId }, { token: operator.token }));
    const held = await sendTest(operator);
    const pending = await deliveryOf(operator, held.id);
    const cancelled = ok(await app.gql(CancelDelivery, { id: pending.id }, { token: operator.token })).cancelDelivery;
    expect(cancelled).toMatchObject({ status: "CANCELLED", attempts: 0, nextAttemptAt: null });
    expect(cancelled.completedAt).not.toBeNull();
    expect(errorCode(await app.gql(RetryDelivery, { id: pending.id }, { token: operator.token }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await app.gql(CancelDelivery, { id: pending.id }, { token: operator.token }))).toBe("BAD_USER_INPUT");

    // Resuming sends what is held, and never the cancelled one.
    const next = await sendTest(operator);
    ok(await app.gql(ResumeForwarding, { deploymentId: operator.deploymentId }, { token: operator.token }));
    await until(operator, next.id, (d) => d.status === "SUCCEEDED");
    await claimRound();
    expect(receiver.byEventId(held.id)).toEqual([]);
    expect((await deliveryOf(operator, held.id)).status).toBe("CANCELLED");
  });

  test("cancelling a delivery whose attempt is in flight records that attempt and stops", async () => {
    const operator = await operatorForwardingTo("/hold/cancel");
    const event = await sendTest(operator);
    await receiver.waitFor(() => receiver.holding.has(event.id));
    const pending = await deliveryOf(operator, event.id);
    ok(await app.gql(CancelDelivery, { id: pending.id }, { token: operator.token }));
    receiver.release(event.id, 500);
    const cancelled = await until(operator, event.id, (d) => d.attempts === 1);
    expect(cancelled).toMatchObject({ status: "CANCELLED", lastStatusCode: 500, nextAttemptAt: null });
    expect(cancelled.attemptLog).toHaveLength(1);
    await claimRound();
    expect(receiver.byEventId(event.id)).toHaveLength(1);
  });

  test("retryFailedDeliveries takes the FAILED deliveries created at or after `since`, and no others", async () => {
    const operator = await operatorForwardingTo("/gone/bulk");
    const old = await sendTest(operator);
    await until(operator, old.id, (d) => d.status === "FAILED");
    await new Promise((resolve) => setTimeout(resolve, 20));
    const since = new Date().toISOString();
    const recent = [await sendTest(operator), await sendTest(operator)];
    for (const event of recent) expect((await until(operator, event.id, (d) => d.status === "FAILED")).attempts).toBe(1); // 410: at once

    // The 410s did not touch the settings' status.
    const { deployment } = ok(await app.gql(ForwardingStatusQuery, { id: operator.deploymentId }, { token: operator.token }));
    expect(deployment!.forwardingSettings!.status).toBe("ACTIVE");

    await forwardTo(operator, "/ok/bulk");
    const count = ok(await app.gql(RetryFailedDeliveries, { deploymentId: operator.deploymentId, since }, { token: operator.token })).retryFailedDeliveries;
    expect(count).toBe(2);
    for (const event of recent) {
      const done = await until(operator, event.id, (d) => d.status === "SUCCEEDED");
      expect(done.url).toBe(`${receiver.url}/ok/bulk`);
    }
    expect((await deliveryOf(operator, old.id)).status).toBe("FAILED");
    expect(ok(await app.gql(RetryFailedDeliveries, { deploymentId: operator.deploymentId, since }, { token: operator.token })).retryFailedDeliveries).toBe(0);
  });
});

describe("test events before any forwarding URL", () => {
  test("are recorded and held, and delivered once a URL is saved", async () => {
    const operator = await createOperator(app, "Ada");
    const event = await sendTest(operator);
    const held = await deliveryOf(operator, event.id);
    expect(held).toMatchObject({ status: "PENDING", attempts: 0, url: null, nextAttemptAt: null });
    await forwardTo(operator, "/ok/first-url");
    const done = await until(operator, event.id, (d) => d.status !== "PENDING");
    expect(done).toMatchObject({ status: "SUCCEEDED", attempts: 1, url: `${receiver.url}/ok/first-url` });
  });
});

describe("automatic disable", () => {
  test("after FORWARDING_DISABLE_AFTER of nothing but failures: DISABLED with a reason, held, re-enabled by resume, nothing dropped", async () => {
    // The run of failures is aged on the app's clock: the test moves it past FORWARDING_DISABLE_AFTER
    // instead of waiting. 10 s, less than an attempt's lease (the delivery timeout plus 5 s): a jump
    // past a lease would let an attempt in flight at that moment be claimed and made a second time.
    const clock = fakeClock(new Date());
    const disabling = await startTestApp(
      { DELIVERY_RETRY_SCHEDULE: "50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms", FORWARDING_DISABLE_AFTER: "10s" },
      { worker: true, clock },
    );
    try {
      const operator = await operatorForwardingTo("/fail/disable", disabling);
      const first = await sendTest(operator, disabling);
      // Failing, but for less than FORWARDING_DISABLE_AFTER: still ACTIVE, however many attempts.
      // The queue runs on the app's clock: each 50 ms step of the schedule comes due as the test moves it.
      const tick = () => clock.advance(50);
      await until(operator, first.id, (d) => d.attempts >= 3, disabling, tick);
      const failing = ok(await disabling.gql(ForwardingStatusQuery, { id: operator.deploymentId }, { token: operator.token })).deployment!.forwardingSettings!;
      expect(failing).toMatchObject({ status: "ACTIVE", disabledReason: null });
      expect(failing.failingSince).not.toBeNull();

      clock.advance(10_000);
      let settings;
      const deadline = Date.now() + scaled(20_000);
      for (;;) {
        settings = ok(await disabling.gql(ForwardingStatusQuery, { id: operator.deploymentId }, { token: operator.token })).deployment!.forwardingSettings!;
        if (settings.status !== "ACTIVE") break;
        if (Date.now() > deadline) throw new Error("forwarding was not disabled after FORWARDING_DISABLE_AFTER of failures");
        tick();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(settings.status).toBe("DISABLED");
      expect(settings.disabledReason).toMatch(/has failed since .* with no success in between/);
      expect(settings.failingSince).not.toBeNull();

      // Held: the pending delivery and any new one wait, unattempted.
      const whenDisabled = (await deliveryOf(operator, first.id, disabling)).attempts;
      const second = await sendTest(operator, disabling);
      // Past the whole schedule on the app's clock, then a round: anything due would be attempted.
      clock.advance(10 * 50);
      await claimRound(disabling, 0);
      expect((await deliveryOf(operator, first.id, disabling)).attempts).toBe(whenDisabled);
      expect(await deliveryOf(operator, second.id, disabling)).toMatchObject({ status: "PENDING", attempts: 0, nextAttemptAt: null });

      await forwardTo(operator, "/ok/disabled-fixed", disabling);
      const resumed = ok(await disabling.gql(ResumeForwarding, { deploymentId: operator.deploymentId }, { token: operator.token })).resumeForwarding;
      expect(resumed).toEqual({ status: "ACTIVE", disabledReason: null });
      for (const event of [first, second]) {
        expect((await until(operator, event.id, (d) => d.status !== "PENDING", disabling, tick)).status).toBe("SUCCEEDED");
      }
      const after = ok(await disabling.gql(ForwardingStatusQuery, { id: operator.deploymentId }, { token: operator.token })).deployment!.forwardingSettings!;
      expect(after).toMatchObject({ status: "ACTIVE", failingSince: null });
      expect(after.lastSuccessAt).not.toBeNull();
    } finally {
      await disabling.close();
    }
  });
});
