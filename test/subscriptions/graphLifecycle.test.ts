/**
 * Microsoft Graph lifecycle notifications, end to end against the fake Graph: every subscription
 * is made with a lifecycleNotificationUrl (the same inbound URL, validated like the notification
 * URL); a reauthorizationRequired renews it with a PATCH at once, a subscriptionRemoved makes a
 * new one and forgets the old id, a missed is acknowledged and counted (what the inbox's and the
 * calendar's deltas then forward: outlookMissed.test.ts, outlookCalendarMissed.test.ts); a
 * lifecycle notification with a wrong clientState is refused and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { fakeClock } from "../helpers/clock.ts";
import { startFakeMicrosoftGraph, type FakeMicrosoftGraph } from "../helpers/fakeProviders/microsoftGraph.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, listTriggers } from "./helpers.ts";

const clock = fakeClock(new Date());
const INBOX = "me/mailFolders('Inbox')/messages";
let fake: FakeMicrosoftGraph;
let app: TestApp;
let ada: Operator;
let accountId: string;

const inbox = () => fake.live().find((s) => s.resource === INBOX)!;
const inboxRow = async () => (await accountSubscriptions(app, ada, accountId)).find((s) => s.resource === INBOX)!;

/** Waits (real time) until `done` holds, at most `ms`. */
async function within(ms: number, done: () => boolean | Promise<boolean>) {
  const until = performance.now() + ms;
  while (!(await done())) {
    if (performance.now() > until) throw new Error(`not done within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  fake = await startFakeMicrosoftGraph({ clock, maxLifetimeMs: 4 * 60 * 60_000 });
  app = await startTestApp(fake.env(), { clock });
  ada = await createOperator(app);
  await listTriggers(app, ada, [{ connector: "microsoft", trigger: "message_received" }]);
  accountId = (await connectAccount(app, ada, { connector: "microsoft", account: "alice", provider: fake })).id;
  await app.app.subscriptions.runOnce(true);
}, 180_000);

afterAll(async () => {
  await app?.app.subscriptions.stop();
  await app?.close();
  await fake?.close();
});

describe("Graph lifecycle notifications for an Outlook subscription", () => {
  test("the create carries a lifecycleNotificationUrl, the same inbound URL, validated like the notificationUrl", async () => {
    expect(fake.live()).toHaveLength(1);
    expect(inbox()).toMatchObject({ notificationUrl: `${app.url}/webhooks/${ada.deploymentId}/microsoft`, lifecycleNotificationUrl: `${app.url}/webhooks/${ada.deploymentId}/microsoft` });
    expect(fake.validations).toHaveLength(2);
    for (const v of fake.validations) expect(v).toMatchObject({ status: 200, body: v.token, contentType: expect.stringMatching(/^text\/plain/) });
  });

  test("a lifecycle notification with a wrong clientState is refused (401) and changes nothing", async () => {
    const before = { row: await inboxRow(), patches: fake.patches.length, made: fake.subscriptions.length };
    for (const event of ["reauthorizationRequired", "subscriptionRemoved", "missed"] as const) {
      const sub = inbox();
      const response = await fetch(sub.lifecycleNotificationUrl!, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ value: [{ subscriptionId: sub.id, subscriptionExpirationDateTime: sub.expirationDateTime, tenantId: "t", clientState: "forged", lifecycleEvent: event }] }),
      });
      expect(response.status).toBe(401);
    }
    await app.app.subscriptions.runOnce(true);
    expect(fake.patches.length).toBe(before.patches);
    expect(fake.subscriptions.length).toBe(before.made);
    expect(await inboxRow()).toEqual(before.row);
  });

  test("reauthorizationRequired makes a PATCH with a new expiry within seconds", async () => {
    const id = inbox().id;
    const expiry = inbox().expirationDateTime;
    clock.advance(60 * 60_000);
    app.app.subscriptions.start();
    try {
      expect(await fake.lifecycle(id, "reauthorizationRequired")).toBe(202);
      await within(5_000, () => fake.patches.includes(id));
      await within(5_000, async () => (await inboxRow()).lastRenewedAt !== null);
    } finally {
      await app.app.subscriptions.stop();
    }
    expect(inbox().id).toBe(id);
    expect(Date.parse(inbox().expirationDateTime)).toBeGreaterThan(Date.parse(expiry));
    expect(await inboxRow()).toMatchObject({ status: "ACTIVE", providerId: id, lastError: null });
  });

  test("subscriptionRemoved makes a new subscription and forgets the old id", async () => {
    const old = inbox();
    expect(await fake.lifecycle(old.id, "subscriptionRemoved")).toBe(202);
    expect(await inboxRow()).toMatchObject({ status: "PENDING", providerId: null });
    const made = fake.subscriptions.length;
    await app.app.subscriptions.runOnce(true);
    expect(fake.subscriptions.length).toBe(made + 1);
    const fresh = inbox();
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.lifecycleNotificationUrl).toBe(fresh.notificationUrl);
    expect(await inboxRow()).toMatchObject({ status: "ACTIVE", providerId: fresh.id });
    // The old id names no subscription any more: what still comes for it is refused.
    const response = await fetch(old.notificationUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ value: [{ subscriptionId: old.id, clientState: old.clientState, changeType: "created", resource: "Users/x/Messages/AAMk1", resourceData: { id: "AAMk1" } }] }),
    });
    expect(response.status).toBe(401);
    expect(await fake.receiveMessage("After the removal")).toEqual([202]);
  });

  test("a lifecycle event Switchyard does not know is acknowledged (202) and changes nothing", async () => {
    const sub = inbox();
    const before = { row: await inboxRow(), patches: fake.patches.length, made: fake.subscriptions.length };
    for (const lifecycleEvent of ["somethingNew", "constructor", "__proto__"]) {
      const status = await fake.post(sub.lifecycleNotificationUrl!, { value: [{ subscriptionId: sub.id, subscriptionExpirationDateTime: sub.expirationDateTime, tenantId: "t", clientState: sub.clientState, lifecycleEvent }] });
      expect(status).toBe(202);
    }
    await app.app.subscriptions.runOnce(true);
    expect({ row: await inboxRow(), patches: fake.patches.length, made: fake.subscriptions.length }).toEqual(before);
  });

  test("missed is acknowledged (202) and counted; every lifecycle event is a metric", async () => {
    expect(await fake.lifecycle(inbox().id, "missed")).toBe(202);
    const text = await (await fetch(`${app.url}/metrics`)).text();
    for (const event of ["reauthorizationRequired", "subscriptionRemoved", "missed"]) {
      expect(text).toMatch(new RegExp(`switchyard_subscription_lifecycle_events_total\\{connector="microsoft",event="${event}"\\} 1`));
    }
  });
});
