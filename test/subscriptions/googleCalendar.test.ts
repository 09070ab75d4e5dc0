/**
 * Google Calendar, end to end against a fake that follows the push-channel API: an operator lists
 * a Calendar trigger, a user connects, and Switchyard makes the channel itself (events.watch with
 * its own token), reads each change with a sync token, forwards one event per changed item once,
 * refuses forged notifications without reading anything, re-makes the channel before it expires
 * (stopping the old one), and stops it when the trigger is unlisted or the account disconnected.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { fakeClock } from "../helpers/clock.ts";
import { startFakeGoogleCalendar, type FakeGoogleCalendar } from "../helpers/fakeProviders/googleCalendar.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, storedEvents, disconnect } from "./helpers.ts";

const clock = fakeClock(new Date());
const LIFETIME_MS = 60 * 60_000;
let fake: FakeGoogleCalendar;
let app: TestApp;
let ada: Operator;
let receiver: Receiver;
let accountId: string;

const triggers = ["event_created", "event_updated", "event_cancelled"].map((trigger) => ({ connector: "google_calendar", trigger }));
const inbound = () => `${app.url}/webhooks/${ada.deploymentId}/google_calendar`;

beforeAll(async () => {
  fake = await startFakeGoogleCalendar({ clock, maxLifetimeMs: LIFETIME_MS });
  receiver = await startReceiver();
  app = await startTestApp(fake.env(), { clock, worker: true });
  ada = await createOperator(app);
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: receiver.url, triggers } }, { token: ada.token }));
  accountId = (await connectAccount(app, ada, { connector: "google_calendar", account: "alice", provider: fake, params: {} })).id;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
  await receiver?.close();
});

describe("a connected Calendar account with listed triggers", () => {
  test("gets a channel on its primary calendar, made by Switchyard with its own token", async () => {
    await app.app.subscriptions.runOnce(true);
    await fake.idle();
    expect(fake.watchBodies).toHaveLength(1);
    const body = fake.watchBodies[0];
    expect(body).toMatchObject({ type: "web_hook", address: inbound() });
    expect(String(body.token)).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const [sub] = await accountSubscriptions(app, ada, accountId);
    expect(sub).toMatchObject({ status: "ACTIVE", resource: "primary", providerId: body.id, lastError: null });
    expect(Date.parse(sub.expiresAt!)).toBe(clock.now().getTime() + LIFETIME_MS);
    // The baseline was read as the channel was made (no events): nothing before the channel is forwarded.
    expect(fake.listCalls).toEqual(["maxResults=250&showDeleted=false"]);
  });

  test("each change is read with the sync token and forwarded once, as its own trigger", async () => {
    const { id, statuses } = await fake.createEvent("Planning");
    expect(statuses).toEqual([202]);
    await fake.updateEvent(id, "Planning (moved)");
    await fake.cancelEvent(id);
    // A redelivered notification reads again and finds nothing new.
    await fake.notifyAll();
    const events = await storedEvents(app, ada, "google_calendar");
    expect(events.map((e) => e.trigger).sort()).toEqual(["event_cancelled", "event_created", "event_updated"]);
    expect(events.find((e) => e.trigger === "event_created")!.payload).toMatchObject({ id, summary: "Planning", status: "confirmed" });
    expect(fake.listCalls.slice(1).every((q) => q.includes("syncToken=st_"))).toBe(true);
    await expect.poll(() => receiver.requests.filter((r) => JSON.parse(r.body).connector === "google_calendar").length, { timeout: 20_000 }).toBe(3);
  });

  test("a notification with a wrong channel token, or for an unknown channel, is refused and reads nothing", async () => {
    const channel = fake.live()[0];
    const reads = fake.listCalls.length;
    for (const headers of <Record<string, string>[]>[
      { "x-goog-channel-id": channel.id, "x-goog-channel-token": "forged", "x-goog-resource-state": "exists" },
      { "x-goog-channel-id": channel.id, "x-goog-resource-state": "exists" },
      { "x-goog-channel-id": "no-such-channel", "x-goog-channel-token": channel.token!, "x-goog-resource-state": "exists" },
    ]) {
      const response = await fetch(inbound(), { method: "POST", headers });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { code: string }).code).toBe("invalid_signature");
    }
    expect(fake.listCalls.length).toBe(reads);
  });

  test("a sync token Google no longer accepts (410) starts again from a full read", async () => {
    fake.invalidateSyncTokens();
    const before = (await storedEvents(app, ada)).length;
    await fake.notifyAll();
    expect((await storedEvents(app, ada)).length).toBe(before);
    const { statuses } = await fake.createEvent("After the reset");
    expect(statuses).toEqual([202]);
    expect((await storedEvents(app, ada)).some((e) => (e.payload as { summary?: string }).summary === "After the reset")).toBe(true);
  });

  test("before a quarter of its lifetime is left, a new channel replaces it and the old one is stopped", async () => {
    const old = fake.live()[0];
    const fullReads = () => fake.listCalls.filter((query) => !query.includes("syncToken=")).length;
    const fullReadsBefore = fullReads();
    clock.advance(LIFETIME_MS * 0.7);
    await app.app.subscriptions.runOnce(true);
    expect(fake.watchBodies).toHaveLength(1);
    clock.advance(LIFETIME_MS * 0.06);
    await app.app.subscriptions.runOnce(true);
    await fake.idle();
    expect(fake.watchBodies).toHaveLength(2);
    expect(old.stopped).toBe(true);
    const live = fake.live();
    expect(live).toHaveLength(1);
    const subs = await accountSubscriptions(app, ada, accountId);
    expect(subs).toHaveLength(1);
    expect(subs[0]).toMatchObject({ status: "ACTIVE", providerId: live[0].id });
    // The sync token survives the new channel: no full read for it, and a change is read incrementally.
    expect(fullReads()).toBe(fullReadsBefore);
    const { statuses } = await fake.createEvent("On the new channel");
    expect(statuses).toEqual([202]);
    expect((await storedEvents(app, ada)).some((e) => (e.payload as { summary?: string }).summary === "On the new channel")).toBe(true);
  });

  test("unlisting the triggers stops the channel; listing them again makes a new one; disconnecting stops it", async () => {
    ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: receiver.url, triggers: [] } }, { token: ada.token }));
    await app.app.subscriptions.runOnce(true);
    expect(fake.live()).toHaveLength(0);
    expect((await accountSubscriptions(app, ada, accountId))[0]).toMatchObject({ status: "DELETED", nextAttemptAt: null });

    ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: receiver.url, triggers } }, { token: ada.token }));
    await app.app.subscriptions.runOnce(true);
    await fake.idle();
    expect(fake.live()).toHaveLength(1);

    await disconnect(app, ada, accountId);
    expect(fake.live()).toHaveLength(0);
    const subs = await accountSubscriptions(app, ada, accountId);
    expect(subs.map((s) => s.status)).toEqual(["DELETED", "DELETED"]);
    await app.app.subscriptions.runOnce(true);
    expect(fake.watchBodies).toHaveLength(3);
  });
});
