import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import type { DeliveryWorker } from "../../src/delivery/worker.ts";
import { DeploymentDeliveries, SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { until } from "../helpers/live.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { statementRecorder } from "../helpers/statementRecorder.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * An event the worker had no slot for when it was recorded (so the accepting statement could not
 * hand it over), or one held back because its URL had its cap in flight, is claimed as soon as the
 * attempt ahead of it ends — not at the next poll, which these workers make once an hour.
 */
let app: TestApp;
let receiver: Receiver;
let worker: DeliveryWorker | undefined;
let ada: Operator;
/** Claim statements the workers made (on the worker's pool, counted as they are sent): the second test waits for one. */
let claims: () => number;

beforeAll(async () => {
  receiver = await startReceiver();
  app = await startTestApp({}, { worker: false });
  // The worker's queue is made over this pool object when the worker is: its statements go through the recorder.
  const workerSql = app.database.workerSql;
  const { recorder, sent } = statementRecorder({ query: workerSql.query.bind(workerSql), withConnection: workerSql.withConnection.bind(workerSql) });
  workerSql.query = recorder.query;
  claims = () => sent.filter((statement) => statement.name === "claim_due_deliveries").length;
  ada = await createOperator(app, "Ada");
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/slot`, triggers: [] } }, { token: ada.token }));
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  receiver.respond(() => 200);
  receiver.requests.length = 0;
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

const startWorker = (concurrency: number, claimSpacingMs?: number) => {
  worker = app.app.createDeliveryWorker({ concurrency, pollIntervalMs: 3_600_000, claimSpacingMs });
  worker.start();
};
const sendTestEvent = async () =>
  ok(await app.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { apiKey: ada.apiKey })).sendTestEvent.id;

test("an event queued while the only slot is busy goes out when that attempt ends, without waiting for a poll", async () => {
  startWorker(1);
  // The first attempt is held in flight until released.
  receiver.respond((request) => (receiver.requests.length === 0 ? receiver.hold(String(request.headers["webhook-id"])) : 200));
  const first = await sendTestEvent();
  await until(() => receiver.holding.has(first), "the first attempt held at the receiver");
  // The slot is taken: this one is recorded without a lease, for a claim.
  const second = await sendTestEvent();
  receiver.release(first);

  await receiver.waitFor((requests) => requests.length === 2, 30_000);
  expect(receiver.requests.map((request) => request.headers["webhook-id"])).toEqual([first, second]);
});

test("an event held back by its URL's cap goes out when the attempt to that URL ends", async () => {
  // Two slots, at most one attempt in flight to one URL.
  startWorker(2);
  receiver.respond((request) => (receiver.requests.length === 0 ? receiver.hold(String(request.headers["webhook-id"])) : 200));
  const first = await sendTestEvent();
  await until(() => receiver.holding.has(first), "the first attempt held at the receiver");
  // A slot is free but the URL is at its cap: recorded without a lease, and the claim it wakes takes nothing.
  const claimsBefore = claims();
  const second = await sendTestEvent();
  await until(() => claims() > claimsBefore, "a claim woken by the event queued without a lease");
  receiver.release(first);

  await receiver.waitFor((requests) => requests.length === 2, 30_000);
  expect(receiver.requests.map((request) => request.headers["webhook-id"])).toEqual([first, second]);
});

test("attempts that end one after another do not each ask the database for more work", async () => {
  // Spaced an hour apart, so the only claim is the worker's first: every event below is handed to it
  // by the accepting statement, and an attempt ending prompts no claim of its own.
  startWorker(10, 3_600_000);
  await until(() => claims() > 0, "the worker's first claim");
  const claimsBefore = claims();
  const sent: string[] = [];
  for (let n = 0; n < 10; n++) sent.push(await sendTestEvent());

  await receiver.waitFor((requests) => requests.length === 10, 30_000);
  // As the console sees them: all ten recorded as SUCCEEDED.
  const succeeded = async () =>
    ok(await app.gql(DeploymentDeliveries, { id: ada.deploymentId, status: "SUCCEEDED", limit: 100 }, { apiKey: ada.apiKey })).deployment!.deliveries.filter((delivery) =>
      sent.includes(delivery.event.id),
    ).length;
  await until(async () => (await succeeded()) === 10, "all ten attempts recorded");
  expect(claims()).toBe(claimsBefore);
});

test("a claim that finds nothing and takes long keeps the next one twenty times as long away", async () => {
  // Every claim takes at least 100 ms here, as claims do when autovacuum has not come for a while.
  const workerSql = app.database.workerSql;
  const query = workerSql.query;
  workerSql.query = async (text, params, name) => {
    if (name === "claim_due_deliveries") await new Promise((resolve) => setTimeout(resolve, 100));
    return query(text, params, name);
  };
  try {
    startWorker(10);
    const claimsBefore = claims();
    await until(() => claims() > claimsBefore, "the worker's first claim");
    const first = claims();
    const started = performance.now();
    // Ten attempts ending 150 ms apart: each frees a slot, which used to prompt a claim every time.
    for (let n = 0; n < 10; n++) {
      await sendTestEvent();
      await receiver.waitFor((requests) => requests.length === n + 1, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const elapsedMs = performance.now() - started;
    // At most one claim per 2 s (20 × 100 ms) after the first; without the spacing, about one per attempt.
    expect(claims() - first).toBeLessThanOrEqual(1 + Math.floor(elapsedMs / 2_000));
  } finally {
    workerSql.query = query;
  }
});
