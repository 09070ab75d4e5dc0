import { afterAll, beforeAll, expect, test } from "vitest";
import { DeploymentDeliveries, SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { PauseForwarding } from "../helpers/operations.ts";
import { createOperator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeClock } from "../helpers/clock.ts";
import { scaled } from "../helpers/timing.ts";

/**
 * What Prometheus scrapes from /metrics about forwarding: delivery outcomes and durations, the
 * queue's depth and age, inbound results — labelled by outcome or connector, never by deployment or URL.
 */
let app: TestApp;
let receiver: Receiver;
const clock = fakeClock(new Date());

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.respond((request) => (request.path.startsWith("/gone") ? 410 : 200));
  // The queue's age is read on the app's clock: the test moves it instead of waiting.
  app = await startTestApp({ DELIVERY_RETRY_SCHEDULE: "100ms" }, { worker: true, clock });
});
afterAll(async () => {
  await app.close();
  await receiver.close();
});

/** The series of one scrape whose names start with `prefix`, by name and labels. */
async function scrape(prefix = "switchyard_"): Promise<Map<string, number>> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  return new Map(
    text
      .split("\n")
      .filter((line) => line.startsWith(prefix))
      .map((line) => {
        const at = line.lastIndexOf(" ");
        return [line.slice(0, at), Number(line.slice(at + 1))] as const;
      }),
  );
}

test("delivery outcomes, durations, the queue and refused inbound requests are counted, with bounded labels", async () => {
  const ada = await createOperator(app, "Ada");
  const forwardTo = (path: string) =>
    app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}${path}`, triggers: [] } }, { token: ada.token });
  const send = () => app.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { token: ada.token });
  const settledCount = async (n: number) => {
    const deadline = Date.now() + scaled(20_000);
    for (;;) {
      const { deployment } = ok(await app.gql(DeploymentDeliveries, { id: ada.deploymentId }, { token: ada.token }));
      if (deployment!.deliveries.filter((d) => d.status !== "PENDING").length === n) return;
      if (Date.now() > deadline) throw new Error(`${n} deliveries did not settle within 20 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  ok(await forwardTo("/ok"));
  ok(await send());
  ok(await send());
  await settledCount(2);
  ok(await forwardTo("/gone"));
  ok(await send());
  await settledCount(3);
  ok(await app.gql(PauseForwarding, { deploymentId: ada.deploymentId }, { token: ada.token }));
  ok(await send());
  clock.advance(1100); // the held delivery ages past a second

  expect((await fetch(`${app.url}/webhooks/${ada.deploymentId}/github`, { method: "POST", body: "{}", headers: { "x-hub-signature-256": "sha256=00" } })).status).toBe(401);
  expect((await fetch(`${app.url}/webhooks/${ada.deploymentId}/no-such-connector`, { method: "POST", body: "{}" })).status).toBe(404);

  const metrics = await scrape();
  expect(metrics.get('switchyard_deliveries_total{outcome="succeeded"}')).toBe(2);
  expect(metrics.get('switchyard_deliveries_total{outcome="failed"}')).toBe(1);
  expect(metrics.get("switchyard_delivery_duration_seconds_count")).toBe(3);
  expect(metrics.get("switchyard_delivery_queue_depth")).toBe(1);
  expect(metrics.get("switchyard_delivery_oldest_pending_seconds")).toBeGreaterThanOrEqual(1);
  expect(metrics.get('switchyard_inbound_events_total{connector="github",result="invalid_signature"}')).toBe(1);
  expect(metrics.get('switchyard_inbound_events_total{connector="unknown",result="unknown_connector"}')).toBe(1);
  // No series names a deployment, an account or a URL.
  for (const series of metrics.keys()) {
    expect(series).not.toContain(ada.deploymentId);
    expect(series).not.toContain("127.0.0.1");
    expect(series).not.toContain("no-such-connector");
  }
});

test("a stall of the event loop shows in Node's lag series, sampled every 50 ms", async () => {
  const lagMax = async () => (await scrape("nodejs_eventloop_lag_max_seconds")).get("nodejs_eventloop_lag_max_seconds");
  await lagMax(); // a scrape starts the lag histogram afresh: it measures from its next sample
  await new Promise((resolve) => setTimeout(resolve, 120));
  // The app runs in this process: blocking the test's loop blocks the app's.
  const until = performance.now() + 300;
  while (performance.now() < until);
  // Twice the sampling interval for the late tick to be recorded (the loop is free again from here).
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await lagMax()).toBeGreaterThanOrEqual(0.2);
});
