import { afterAll, beforeAll, expect, test } from "vitest";
import type { DeliveryWorker } from "../../src/delivery/worker.ts";
import { SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { until } from "../helpers/live.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * A freed slot claims only when something may be waiting for one: an event the worker had no slot
 * for when it was recorded (so the accepting statement could not hand it over) is claimed as soon
 * as the attempt ahead of it ends — not at the next poll, which this worker makes once an hour.
 */
let app: TestApp;
let receiver: Receiver;
let worker: DeliveryWorker;
let ada: Operator;

beforeAll(async () => {
  receiver = await startReceiver();
  app = await startTestApp({}, { worker: false });
  ada = await createOperator(app, "Ada");
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/slot`, triggers: [] } }, { token: ada.token }));
  worker = app.app.createDeliveryWorker({ concurrency: 1, pollIntervalMs: 3_600_000 });
  worker.start();
});
afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await receiver?.close();
});

const sendTestEvent = async () =>
  ok(await app.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { apiKey: ada.apiKey })).sendTestEvent.id;

test("an event queued while the only slot is busy goes out when that attempt ends, without waiting for a poll", async () => {
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
