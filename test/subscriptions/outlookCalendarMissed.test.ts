/**
 * The Outlook calendar after Graph's `missed` lifecycle notification, end to end against the fake
 * Graph (https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events,
 * https://learn.microsoft.com/en-us/graph/api/event-delta): the calendar subscription is made with
 * the position of a calendar view's delta over a fixed window (its first round, the calendar as
 * it is, read through and forwarded nowhere); the events created, changed and deleted while Graph
 * could not deliver notifications are read from that position once `missed` arrives and forwarded
 * to the operator's URL once each with the trigger a notification would have had, a recurring
 * series once under its master's id (not once per occurrence), and nothing a notification already
 * brought; the next `missed` reads on from the stored delta link.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fakeClock } from "../helpers/clock.ts";
import { until } from "../helpers/live.ts";
import type { FakeMicrosoftGraph } from "../helpers/fakeProviders/microsoftGraph.ts";
import type { Operator } from "../helpers/operators.ts";
import type { Receiver } from "../helpers/receiver.ts";
import type { TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, storedEvents } from "./helpers.ts";
import { startOutlookStory } from "./outlookStory.ts";

const clock = fakeClock(new Date());
const CALENDAR = "me/events";
const TRIGGERS = ["event_created", "event_updated", "event_deleted"];
let fake: FakeMicrosoftGraph;
let receiver: Receiver;
let app: TestApp;
let ada: Operator;
let accountId: string;
let story: Awaited<ReturnType<typeof startOutlookStory>> | undefined;

const calendar = () => fake.live().find((s) => s.resource === CALENDAR)!;
type Payload = { id: string; subject?: string };
/** The calendar events stored, as "trigger subject-or-id", in any order. */
const stored = async () =>
  (await storedEvents(app, ada, "microsoft"))
    .filter((e) => TRIGGERS.includes(e.trigger))
    .map((e) => `${e.trigger} ${(e.payload as Payload).subject ?? (e.payload as Payload).id}`)
    .sort();
/** The same, as the operator's URL received them. */
const forwarded = () =>
  receiver.requests
    .map((r) => JSON.parse(r.body) as { type: string; data: Payload })
    .filter((b) => b.type.startsWith("microsoft.event_"))
    .map((b) => `${b.type.slice("microsoft.".length)} ${b.data.subject ?? b.data.id}`)
    .sort();
/** The state token a delta request or link carries. */
const tokenOf = (url: string) => {
  const query = new URL(url, "http://graph").searchParams;
  return query.get("$deltatoken") ?? query.get("$skiptoken");
};
const DAY = 24 * 60 * 60 * 1000;
const inDays = (days: number) => new Date(clock.now().getTime() + days * DAY).toISOString();

beforeAll(async () => {
  // The calendar before the account is connected.
  story = await startOutlookStory(clock, TRIGGERS, async (graph) => {
    await graph.eventChanges([
      { changeType: "created", subject: "Standup", weekly: 3 },
      { changeType: "created", subject: "Offsite" },
      { changeType: "created", subject: "Dentist" },
      { changeType: "created", subject: "Review" },
      { changeType: "created", subject: "Next year's kickoff", start: inDays(400) },
    ]);
  });
  ({ fake, receiver, app, ada, accountId } = story);
}, 180_000);

afterAll(async () => {
  await story?.close();
});

describe("an Outlook calendar subscription after Graph's missed lifecycle notification", () => {
  test("is made with a calendar view's delta position over a fixed window, the calendar as it is forwarded nowhere", async () => {
    expect((await accountSubscriptions(app, ada, accountId)).map((s) => [s.resource, s.status])).toEqual([[CALENDAR, "ACTIVE"]]);
    const first = new URL(fake.calendarDeltaRequests[0], "http://graph");
    expect(first.pathname).toBe("/api/v1.0/me/calendarView/delta");
    const [start, end] = ["startDateTime", "endDateTime"].map((name) => Date.parse(first.searchParams.get(name)!));
    expect(start).toBe(clock.now().getTime() - DAY);
    expect(end).toBe(clock.now().getTime() + 365 * DAY);
    // The first round read through: three occurrences and three single events in the window, two a page.
    expect(fake.calendarDeltaRequests).toHaveLength(3);
    expect(fake.calendarDeltaLinks).toHaveLength(1);
    expect(await stored()).toEqual([]);
  });

  test("what changed while notifications were lost is forwarded once each, a series once, nothing a notification brought", async () => {
    clock.advance(60_000);
    // Delivered by notifications: a new event, and a change to an older one.
    expect((await fake.eventChanges([{ changeType: "created", subject: "Delivered" }])).statuses).toEqual([202]);
    expect((await fake.eventChanges([{ changeType: "updated", subject: "Review (delivered)", id: fake.eventId("Review") }])).statuses).toEqual([202]);
    expect(await stored()).toEqual(["event_created Delivered", "event_updated Review (delivered)"]);
    // Their attempts recorded before the clock jumps past their lease: a jump over an attempt still in
    // flight makes its delivery due again (at least once), which is not what this story is about.
    await until(
      async () => (await app.database.sql.query<{ n: number }>("select count(*)::int as n from delivery where status = 'PENDING'"))[0].n === 0,
      "the two notifications' deliveries to be recorded",
    );

    fake.loseNotifications(true);
    clock.advance(60_000);
    const dentist = fake.eventId("Dentist");
    const lost = await fake.eventChanges([
      { changeType: "created", subject: "Lost new" },
      { changeType: "created", subject: "Lost series", weekly: 4 },
      { changeType: "updated", subject: "Offsite (moved)", id: fake.eventId("Offsite") },
      { changeType: "updated", subject: "Standup (15 min)", id: fake.eventId("Standup") },
      { changeType: "deleted", subject: "Dentist", id: dentist },
    ]);
    expect(lost.statuses).toEqual([]);
    fake.loseNotifications(false);

    const requests = fake.calendarDeltaRequests.length;
    const reads = fake.reads.length;
    expect(await fake.lifecycle(calendar().id, "missed")).toBe(202);
    // The stored delta link, then its next pages.
    expect(tokenOf(fake.calendarDeltaRequests[requests])).toBe(tokenOf(fake.calendarDeltaLinks[0]));
    expect(fake.calendarDeltaRequests.length - requests).toBeGreaterThan(1);
    // Each series' master read once, however many of its occurrences were listed.
    expect(fake.reads.slice(reads).sort()).toEqual([`/api/v1.0/me/events/${encodeURIComponent(fake.eventId("Lost series"))}`, `/api/v1.0/me/events/${encodeURIComponent(fake.eventId("Standup (15 min)"))}`].sort());

    const expected = [
      "event_created Delivered",
      "event_created Lost new",
      "event_created Lost series",
      `event_deleted ${dentist}`,
      "event_updated Offsite (moved)",
      "event_updated Review (delivered)",
      "event_updated Standup (15 min)",
    ];
    expect(await stored()).toEqual(expected);
    const events = await storedEvents(app, ada, "microsoft");
    const series = events.find((e) => (e.payload as Payload).subject === "Lost series")!;
    expect(series.payload).toMatchObject({ id: fake.eventId("Lost series"), type: "seriesMaster" });
    expect(events.find((e) => e.trigger === "event_deleted")!.payload).toMatchObject({ id: dentist, changeType: "deleted" });
    await receiver.waitFor((r) => r.length >= expected.length, 20_000);
    expect(forwarded()).toEqual(expected);
  });

  test("the next missed reads on from the stored delta link: only what changed since is forwarded", async () => {
    fake.loseNotifications(true);
    // Within the forwarder's lease on the deliveries just made (a longer jump would redeliver them: at least once).
    clock.advance(1_000);
    await fake.eventChanges([{ changeType: "updated", subject: "Lost new (renamed)", id: fake.eventId("Lost new") }]);
    fake.loseNotifications(false);
    const requests = fake.calendarDeltaRequests.length;
    const link = fake.calendarDeltaLinks[fake.calendarDeltaLinks.length - 1];
    expect(await fake.lifecycle(calendar().id, "missed")).toBe(202);
    expect(fake.calendarDeltaRequests.slice(requests).map(tokenOf)).toEqual([tokenOf(link)]);
    expect((await stored()).filter((e) => e.startsWith("event_updated Lost new"))).toEqual(["event_updated Lost new (renamed)"]);
    expect(await stored()).toHaveLength(8);

    // Graph sending missed again with nothing new forwards nothing.
    expect(await fake.lifecycle(calendar().id, "missed")).toBe(202);
    expect(await stored()).toHaveLength(8);
    await receiver.waitFor((r) => r.length >= 8, 20_000);
    expect(forwarded()).toHaveLength(8);
  });

  test("an expired delta link (410) takes a fresh position over a new window: that gap is not forwarded, the next one is", async () => {
    fake.expireCalendarDeltaLinks();
    fake.loseNotifications(true);
    clock.advance(1_000);
    await fake.eventChanges([{ changeType: "updated", subject: "Offsite (in the gap)", id: fake.eventId("Offsite (moved)") }]);
    fake.loseNotifications(false);
    const requests = fake.calendarDeltaRequests.length;
    expect(await fake.lifecycle(calendar().id, "missed")).toBe(202);
    const fresh = new URL(fake.calendarDeltaRequests[requests + 1], "http://graph");
    expect(tokenOf(fresh.href)).toBeNull();
    expect(Date.parse(fresh.searchParams.get("startDateTime")!)).toBe(clock.now().getTime() - DAY);
    expect(await stored()).toHaveLength(8);

    fake.loseNotifications(true);
    clock.advance(1_000);
    await fake.eventChanges([{ changeType: "updated", subject: "Offsite (after the gap)", id: fake.eventId("Offsite (in the gap)") }]);
    fake.loseNotifications(false);
    expect(await fake.lifecycle(calendar().id, "missed")).toBe(202);
    expect((await stored()).filter((e) => e.includes("Offsite"))).toEqual(["event_updated Offsite (after the gap)", "event_updated Offsite (moved)"]);
    await receiver.waitFor((r) => r.length >= 9, 20_000);
    expect(forwarded()).toHaveLength(9);
  });
});
