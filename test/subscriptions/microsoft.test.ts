/**
 * Outlook through Microsoft Graph, end to end against a fake that follows Graph's subscription API:
 * Switchyard makes one subscription per watched resource (the inbox's messages, the calendar's
 * events) with its own clientState, answering Graph's validationToken request before the create
 * returns; each item of a batched notification becomes its own event, read at its `resource`;
 * forged clientStates are refused without reading; renewals PATCH, a subscription Graph forgot
 * (404) is made again, and failures back off and turn FAILED after 24 h while still being retried.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { fakeClock } from "../helpers/clock.ts";
import { startFakeMicrosoftGraph, type FakeMicrosoftGraph } from "../helpers/fakeProviders/microsoftGraph.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, storedEvents, listTriggers } from "./helpers.ts";

const clock = fakeClock(new Date());
const LIFETIME_MS = 4 * 60 * 60_000;
const INBOX = "me/mailFolders('Inbox')/messages";
let fake: FakeMicrosoftGraph;
let app: TestApp;
let ada: Operator;
let accountId: string;

const triggers = ["message_received", "event_created", "event_updated", "event_deleted"].map((trigger) => ({ connector: "microsoft", trigger }));
const eventsOf = async (trigger: string) => (await storedEvents(app, ada)).filter((e) => e.connector === "microsoft" && e.trigger === trigger);

beforeAll(async () => {
  fake = await startFakeMicrosoftGraph({ clock, maxLifetimeMs: LIFETIME_MS });
  app = await startTestApp(fake.env(), { clock });
  ada = await createOperator(app);
  await listTriggers(app, ada, triggers);
  accountId = (await connectAccount(app, ada, { connector: "microsoft", account: "alice", provider: fake })).id;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

describe("a connected Microsoft 365 account with Outlook triggers listed", () => {
  test("gets one Graph subscription per resource; Graph's validationToken is answered as text/plain before the create returns", async () => {
    await app.app.subscriptions.runOnce(true);
    expect(fake.live().map((s) => [s.resource, s.changeType]).sort()).toEqual([
      ["me/events", "created,deleted,updated"],
      [INBOX, "created"],
    ]);
    for (const s of fake.live()) {
      expect(s.notificationUrl).toBe(`${app.url}/webhooks/${ada.deploymentId}/microsoft`);
      expect(s.clientState).toMatch(/^[A-Za-z0-9_-]{20,128}$/);
    }
    expect(new Set(fake.live().map((s) => s.clientState)).size).toBe(2);
    // Each create's notificationUrl and lifecycleNotificationUrl (the same URL) are validated.
    for (const s of fake.live()) expect(s.lifecycleNotificationUrl).toBe(s.notificationUrl);
    expect(fake.validations).toHaveLength(4);
    for (const v of fake.validations) expect(v).toMatchObject({ status: 200, body: v.token, contentType: expect.stringMatching(/^text\/plain/) });
    const subs = await accountSubscriptions(app, ada, accountId);
    expect(subs.map((s) => s.status)).toEqual(["ACTIVE", "ACTIVE"]);
  });

  test("a received message becomes message_received with the message read at its resource", async () => {
    expect(await fake.receiveMessage("Quarterly report")).toEqual([202]);
    const [event] = await eventsOf("message_received");
    expect(event.payload).toMatchObject({ subject: "Quarterly report" });
  });

  test("one notification carrying three changes becomes three events, and a redelivery adds none", async () => {
    const first = await fake.eventChanges([
      { changeType: "created", subject: "Planning" },
      { changeType: "updated", subject: "Review (moved)" },
      { changeType: "deleted", subject: "Old meeting" },
    ]);
    expect(first.statuses).toEqual([202]);
    expect((await eventsOf("event_created")).map((e) => (e.payload as { subject: string }).subject)).toEqual(["Planning"]);
    expect(await eventsOf("event_updated")).toHaveLength(1);
    expect((await eventsOf("event_deleted"))[0].payload).toMatchObject({ id: first.ids[2], changeType: "deleted" });
    const before = (await storedEvents(app, ada)).length;
    // Graph retries a notification it got no 2xx for: the same items, the same events.
    const last = fake.sent[fake.sent.length - 1];
    expect(await fake.post(last.url, last.body)).toBe(202);
    expect((await storedEvents(app, ada)).length).toBe(before);
  });

  test("a wrong clientState, alone or beside a good item, is refused and nothing is read", async () => {
    const sub = fake.live().find((s) => s.resource === INBOX)!;
    const reads = fake.reads.length;
    const item = (clientState: string | undefined) => ({ subscriptionId: sub.id, clientState, changeType: "created", resource: "Users/x/Messages/AAMk1", resourceData: { id: "AAMk1" } });
    for (const value of [[item("forged")], [item(undefined)], [item(sub.clientState), item("forged")], [{ ...item(sub.clientState), subscriptionId: "unknown" }]]) {
      const response = await fetch(sub.notificationUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ value }) });
      expect(response.status).toBe(401);
    }
    expect(fake.reads.length).toBe(reads);
  });

  test("renewed with PATCH when a quarter of its lifetime is left; made again when Graph forgot it", async () => {
    const inbox = () => fake.live().find((s) => s.resource === INBOX)!;
    const id = inbox().id;
    clock.advance(LIFETIME_MS * 0.76);
    await app.app.subscriptions.runOnce(true);
    expect(fake.patches.filter((p) => p === id)).toHaveLength(1);
    expect(inbox().id).toBe(id);
    expect(Date.parse(inbox().expirationDateTime)).toBe(clock.now().getTime() + LIFETIME_MS);

    fake.forget(id);
    clock.advance(LIFETIME_MS * 0.76);
    await app.app.subscriptions.runOnce(true);
    expect(inbox().id).not.toBe(id);
    const subs = await accountSubscriptions(app, ada, accountId);
    expect(subs.filter((s) => s.resource === INBOX)).toMatchObject([{ status: "ACTIVE", providerId: inbox().id }]);
    expect(await fake.receiveMessage("After the re-creation")).toEqual([202]);
    expect((await eventsOf("message_received")).length).toBe(2);
  });

  test("failures back off from 1 min doubling to 1 h, turn FAILED after 24 h, are still retried hourly, and heal", async () => {
    fake.failWith(503);
    clock.advance(LIFETIME_MS * 0.76);
    await app.app.subscriptions.runOnce(true);
    const inbox = async () => (await accountSubscriptions(app, ada, accountId)).find((s) => s.resource === INBOX)!;
    let sub = await inbox();
    expect(sub.status).toBe("ACTIVE");
    expect(sub.lastError).toMatch(/HTTP 503/);
    const delays: number[] = [];
    const started = clock.now().getTime();
    while (clock.now().getTime() - started < 25 * 60 * 60_000) {
      const next = Date.parse(sub.nextAttemptAt!);
      delays.push(next - clock.now().getTime());
      clock.set(new Date(next));
      await app.app.subscriptions.runOnce(true);
      sub = await inbox();
    }
    expect(delays.slice(0, 7).map((ms) => ms / 60_000)).toEqual([1, 2, 4, 8, 16, 32, 60]);
    expect(sub.status).toBe("FAILED");
    expect(Date.parse(sub.nextAttemptAt!) - clock.now().getTime()).toBe(60 * 60_000);
    // Turning FAILED is the lifecycle event switchyard.subscription_failed, once per subscription,
    // carrying the connection and the error, never a token.
    const failed = (await storedEvents(app, ada)).filter((e) => e.connector === "switchyard" && e.trigger === "subscription_failed");
    expect(failed).toHaveLength(2);
    for (const event of failed) {
      expect(event.account).toBe("alice");
      expect(event.payload).toMatchObject({ connection: { id: accountId, connector: "microsoft" }, error: { code: "subscription_failed", message: expect.stringMatching(/HTTP 503/) } });
      expect(JSON.stringify(event.payload)).not.toMatch(/access_token|refresh_token|accessToken/i);
    }

    fake.failWith(0);
    for (const { id } of await accountSubscriptions(app, ada, accountId)) {
      ok(await app.gql(`mutation($id: ID!) { retryProviderSubscription(id: $id) { id nextAttemptAt } }`, { id }, { apiKey: ada.apiKey }));
    }
    await app.app.subscriptions.runOnce(true);
    expect(await accountSubscriptions(app, ada, accountId)).toMatchObject([
      { status: "ACTIVE", lastError: null },
      { status: "ACTIVE", lastError: null },
    ]);
  });

  test("another deployment's key cannot retry it (404)", async () => {
    const other = await createOperator(app, "Bob");
    const [sub] = await accountSubscriptions(app, ada, accountId);
    const result = await app.gql(`mutation($id: ID!) { retryProviderSubscription(id: $id) { id } }`, { id: sub.id }, { apiKey: other.apiKey });
    expect(result.errors?.[0].extensions?.code).toBe("NOT_FOUND");
  });

  test("the metrics count subscriptions by status and operations by outcome", async () => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    expect(text).toMatch(/switchyard_provider_subscriptions\{connector="microsoft",status="ACTIVE"\} 2/);
    expect(text).toMatch(/switchyard_subscription_operations_total\{connector="microsoft",operation="renew",outcome="failure"\} \d+/);
    expect(text).toMatch(/switchyard_subscription_operations_total\{connector="microsoft",operation="create",outcome="success"\} 2/);
  });
});
