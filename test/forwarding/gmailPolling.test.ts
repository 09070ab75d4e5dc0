import { afterAll, beforeAll, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeGoogle, startFakeGoogle } from "../helpers/fakeProviders/index.ts";
import { DeploymentEvents, SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * Without a Pub/Sub push configured (no Gmail webhook secret), Switchyard reads the mailbox itself
 * every POLL_INTERVAL from the account's stored history cursor.
 */
let app: TestApp;
let google: FakeGoogle;
let receiver: Receiver;
let ada: Operator;

beforeAll(async () => {
  [google, receiver] = await Promise.all([startFakeGoogle(), startReceiver()]);
  const { CONNECTOR_GMAIL_WEBHOOK_SECRET: _push, ...env } = google.env();
  app = await startTestApp({ ...env, POLL_INTERVAL: "200ms" }, { worker: true, poller: true });
  ada = await createOperator(app, "Ada");
  google.receiveEmail({ subject: "Before connecting" });
  await connectAccount(app, ada, { connector: "gmail", account: "alice", provider: google });
  ok(
    await app.gql(
      SaveForwardingSettings,
      {
        deploymentId: ada.deploymentId,
        input: {
          forwardingUrl: `${receiver.url}/gmail`,
          triggers: [
            { connector: "gmail", trigger: "email_received" },
            { connector: "gmail", trigger: "email_sent" },
          ],
        },
      },
      { token: ada.token },
    ),
  );
});
afterAll(async () => {
  await app.close();
  await Promise.all([google.close(), receiver.close()]);
});

test("mail received and sent after connecting is read by polling and forwarded once each", async () => {
  google.receiveEmail({ subject: "Polled in", from: "bob@example.com" });
  google.sendEmail({ subject: "Polled out", to: "bob@example.com" });
  await receiver.waitFor((requests) => requests.length >= 2);
  // A few more sweeps must not forward anything again.
  await new Promise((resolve) => setTimeout(resolve, 700));
  const bodies = receiver.requests.map((request) => JSON.parse(request.body));
  expect(bodies.map((body) => [body.type, body.data.subject]).sort()).toEqual([
    ["gmail.email_received", "Polled in"],
    ["gmail.email_sent", "Polled out"],
  ]);
  // Mail from before the account was connected is not replayed (the connection's own lifecycle event aside).
  const { deployment } = ok(await app.gql(DeploymentEvents, { id: ada.deploymentId }, { token: ada.token }));
  expect(deployment!.events.filter((e) => e.type.startsWith("gmail."))).toHaveLength(2);
});
