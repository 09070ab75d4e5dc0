import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeGoogle, startFakeGoogle } from "../helpers/fakeProviders/index.ts";
import { DeploymentEvents, SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/** Gmail arrives as a Pub/Sub push that only says "this mailbox changed": the mail is read with the account's token. */
let app: TestApp;
let google: FakeGoogle;
let receiver: Receiver;
let ada: Operator;

beforeAll(async () => {
  [google, receiver] = await Promise.all([startFakeGoogle(), startReceiver()]);
  app = await startTestApp(google.env(), { worker: true });
  ada = await createOperator(app, "Ada");
  await connectAccount(app, ada, { connector: "gmail", account: "alice", provider: google });
  ok(
    await app.gql(
      SaveForwardingSettings,
      { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/gmail`, triggers: [{ connector: "gmail", trigger: "email_received" }] } },
      { token: ada.token },
    ),
  );
});
afterAll(async () => {
  await app.close();
  await Promise.all([google.close(), receiver.close()]);
});

const post = (request: { headers: Record<string, string>; body: string }) =>
  fetch(`${app.url}/webhooks/${ada.deploymentId}/gmail`, { method: "POST", headers: request.headers, body: request.body });

describe("Gmail push", () => {
  test("a received mail is read from the mailbox history and forwarded; a sent one is stored only", async () => {
    google.receiveEmail({ subject: "Invoice 42", from: "billing@example.com" });
    google.sendEmail({ subject: "Re: Invoice 42", to: "billing@example.com" });
    const push = google.push();
    const response = await post(push);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: 2, recorded: 2, duplicates: 0, forwarded: 1, unrouted: 0 });

    await receiver.waitFor((requests) => requests.length === 1);
    const body = JSON.parse(receiver.requests[0].body);
    expect(body).toMatchObject({ type: "gmail.email_received", account: "alice", data: { subject: "Invoice 42", from: "billing@example.com", emailAddress: "alice@example.com" } });

    // Pub/Sub redelivers the same push: nothing new.
    expect(await (await post(push)).json()).toMatchObject({ recorded: 0 });
    const { deployment } = ok(await app.gql(DeploymentEvents, { id: ada.deploymentId }, { token: ada.token }));
    // Beside the connection's own switchyard.connection_created, recorded when alice connected.
    expect(deployment!.events.map((e) => e.type).sort()).toEqual(["gmail.email_received", "gmail.email_sent", "switchyard.connection_created"]);
  });

  test("the next push reads only what is new since the stored cursor", async () => {
    google.receiveEmail({ subject: "Second mail" });
    expect(await (await post(google.push())).json()).toMatchObject({ received: 1, recorded: 1, forwarded: 1 });
  });

  test("a push token for another audience, or unsigned, is refused with 401", async () => {
    for (const request of [google.push({ audience: "someone-elses-subscription" }), { ...google.push(), headers: { "content-type": "application/json" } }]) {
      const response = await post(request);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: "invalid_signature" });
    }
  });

  test("a push for a mailbox nobody connected here is not stored", async () => {
    const response = await post(google.push({ emailAddress: "stranger@example.com", historyId: "1" }));
    expect(await response.json()).toEqual({ received: 0, recorded: 0, duplicates: 0, forwarded: 0, unrouted: 1 });
  });

  test("two mailboxes on one deployment: each push is read with its own account's token and forwarded as that account", async () => {
    google.setIdentity({ email: "bob@example.com" });
    try {
      await connectAccount(app, ada, { connector: "gmail", account: "bob", provider: google });
    } finally {
      google.setIdentity({ email: "alice@example.com" });
    }
    google.receiveEmail({ mailbox: "bob@example.com", subject: "For Bob" });
    google.receiveEmail({ mailbox: "alice@example.com", subject: "For Alice" });
    const seenBefore = receiver.requests.length;

    // Bob's push reads Bob's mailbox only; Alice's mail waits for hers.
    expect(await (await post(google.push({ emailAddress: "bob@example.com" }))).json()).toMatchObject({ received: 1, recorded: 1, forwarded: 1 });
    expect(await (await post(google.push({ emailAddress: "alice@example.com" }))).json()).toMatchObject({ received: 1, recorded: 1, forwarded: 1 });

    const forwarded = (await receiver.waitFor((requests) => requests.length === seenBefore + 2)).slice(seenBefore).map((r) => JSON.parse(r.body));
    expect(forwarded.map((body) => [body.account, body.data.subject, body.data.emailAddress]).sort()).toEqual([
      ["alice", "For Alice", "alice@example.com"],
      ["bob", "For Bob", "bob@example.com"],
    ]);
  });
});
