import { afterAll, beforeAll, expect, test } from "vitest";
import type { DeliveryWorker } from "../../src/delivery/worker.ts";
import { DeploymentDeliveries, SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { until } from "../helpers/live.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The worker loads undici, its HTTP client, as it starts (after the port opened) rather than on the
 * first attempt (src/net/undici.ts). A load that fails — a file missing from a broken deployment —
 * must not take the process down with an unhandled rejection: each attempt fails with a reason, stays
 * PENDING for its retry, and a worker that can load undici delivers it with the same webhook-id.
 */
let app: TestApp;
let receiver: Receiver;
let ada: Operator;
/** The worker running now (the test stops the first before it starts the second). */
let worker: DeliveryWorker | undefined;

beforeAll(async () => {
  receiver = await startReceiver();
  // Retries 100 ms apart, ten of them: still PENDING after the failing worker's attempts.
  app = await startTestApp({ DELIVERY_RETRY_SCHEDULE: Array(10).fill("100ms").join(",") }, { worker: false });
  ada = await createOperator(app, "Ada");
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/hooks`, triggers: [] } }, { token: ada.token }));
});
afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await receiver?.close();
});

const startWorker = (loadUndici?: () => Promise<never>) => {
  worker = app.app.createDeliveryWorker({ concurrency: 4, pollIntervalMs: 50, loadUndici });
  worker.start();
  return worker;
};
const deliveries = async () => ok(await app.gql(DeploymentDeliveries, { id: ada.deploymentId }, { token: ada.token })).deployment!.deliveries;

test("a worker that cannot load undici fails each attempt with a reason and keeps the delivery for one that can", async () => {
  let loads = 0;
  const broken = startWorker(() => {
    loads++;
    return Promise.reject(new Error("Cannot find module 'undici'"));
  });
  const { sendTestEvent: event } = ok(
    await app.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { apiKey: ada.apiKey }),
  );
  await until(async () => ((await deliveries())[0]?.attempts ?? 0) >= 2, "two attempts recorded by the worker without undici");
  const [failing] = await deliveries();
  expect(failing.status).toBe("PENDING");
  expect(failing.lastError).toBe("could not prepare the request");
  expect(failing.attemptLog[0].statusCode).toBeNull();
  // Loaded once as the worker started; every attempt gets that one failure, and nothing was sent.
  expect(loads).toBe(1);
  expect(receiver.requests).toHaveLength(0);
  await broken.stop();

  startWorker();
  await receiver.waitFor((requests) => requests.length === 1, 30_000);
  expect(receiver.requests[0].headers["webhook-id"]).toBe(event.id);
  await until(async () => (await deliveries())[0]?.status === "SUCCEEDED", "the delivery recorded as succeeded");
});
