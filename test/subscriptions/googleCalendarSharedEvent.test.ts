/**
 * One meeting in two people's calendars: Google gives the attendee's copy the organizer's event id,
 * and a change to it can carry the same `updated` in both. Alice and Bob are connected in one
 * deployment and the fake's one calendar is both of theirs, so each change reaches both channels
 * with the same id and version. Each connection must forward its own event: deduplication is per
 * reader (a subscription, a connection's change reader, a poll), not across the deployment. And what
 * a connection's subscription read is that connection's, even when another connection of the same
 * Google user (the same external id) is older.
 */
import { beforeAll, expect, test } from "vitest";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import type { FakeGoogleCalendar } from "../helpers/fakeProviders/googleCalendar.ts";
import { connectedCalendarForFile, storedEvents } from "./helpers.ts";

const calendar = connectedCalendarForFile(fakeClock(new Date()));
let alicesIdentity: ReturnType<FakeGoogleCalendar["getIdentity"]>;

beforeAll(async () => {
  const { fake, app, ada } = calendar;
  alicesIdentity = fake.getIdentity();
  fake.setIdentity({ id: "bob@example.com", displayName: "Bob" });
  await connectAccount(app, ada, { connector: "google_calendar", account: "bob", provider: fake, params: {} });
}, 180_000);

test("the same event in two connections' calendars is forwarded once for each, and a redelivered notification adds nothing", async () => {
  const { fake, app, ada } = calendar;
  await app.app.subscriptions.runOnce(true);
  await fake.idle();
  expect(fake.live()).toHaveLength(2);

  const { id, statuses } = await fake.createEvent("Planning");
  expect(statuses).toEqual([202, 202]);
  const stored = () => storedEvents(app, ada, "google_calendar");
  const seen = (await stored()).map((e) => [e.account, e.trigger, (e.payload as { id?: string }).id]);
  expect(seen.sort()).toEqual([
    ["alice", "event_created", id],
    ["bob", "event_created", id],
  ]);

  // Google may deliver a notification again: each connection's read finds nothing new.
  expect(await fake.notifyAll()).toEqual([202, 202]);
  expect(await stored()).toHaveLength(2);
});

test("a second connection of the same Google user gets its own subscription's events, not the older connection", async () => {
  const { fake, app, ada } = calendar;
  fake.setIdentity(alicesIdentity);
  await connectAccount(app, ada, { connector: "google_calendar", account: "alice-work", provider: fake, params: {} });
  await app.app.subscriptions.runOnce(true);
  await fake.idle();
  expect(fake.live()).toHaveLength(3);

  const { id, statuses } = await fake.createEvent("Review");
  expect(statuses).toEqual([202, 202, 202]);
  const accounts = (await storedEvents(app, ada, "google_calendar")).filter((e) => (e.payload as { id?: string }).id === id).map((e) => e.account);
  expect(accounts.sort()).toEqual(["alice", "alice-work", "bob"]);
});
