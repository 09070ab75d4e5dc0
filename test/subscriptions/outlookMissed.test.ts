/**
 * Outlook after Graph's `missed` lifecycle notification, end to end against the fake Graph
 * (https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events,
 * https://learn.microsoft.com/en-us/graph/api/message-delta): the inbox subscription is made with
 * the inbox's delta position (a first round listing only messages received from then on: nothing
 * already in the mailbox is read or forwarded); messages whose notifications Graph could not
 * deliver are read from that position once `missed` arrives and forwarded to the operator's URL
 * once each, while one a notification already brought (read since: its etag changed) and an older
 * message's read/unread change are not; the next `missed` reads on from the stored delta link.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fakeClock } from "../helpers/clock.ts";
import type { FakeMicrosoftGraph } from "../helpers/fakeProviders/microsoftGraph.ts";
import type { Operator } from "../helpers/operators.ts";
import type { Receiver } from "../helpers/receiver.ts";
import type { TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, storedEvents } from "./helpers.ts";
import { startOutlookStory } from "./outlookStory.ts";

const clock = fakeClock(new Date());
const INBOX = "me/mailFolders('Inbox')/messages";
let fake: FakeMicrosoftGraph;
let receiver: Receiver;
let app: TestApp;
let ada: Operator;
let accountId: string;
let story: Awaited<ReturnType<typeof startOutlookStory>> | undefined;

const inbox = () => fake.live().find((s) => s.resource === INBOX)!;
const received = async () => (await storedEvents(app, ada, "microsoft")).filter((e) => e.trigger === "message_received");
/** Subjects of the message_received events the operator's URL received, in any order. */
const forwardedSubjects = () =>
  receiver.requests
    .map((r) => JSON.parse(r.body) as { type: string; data: { subject: string } })
    .filter((b) => b.type === "microsoft.message_received")
    .map((b) => b.data.subject)
    .sort();
/** The state token a delta request or link carries. */
const tokenOf = (url: string) => new URL(url, "http://graph").searchParams.get("$deltatoken");

beforeAll(async () => {
  // Already in the mailbox before the account is connected.
  story = await startOutlookStory(clock, ["message_received"], async (graph) => {
    await graph.receiveMessage("Before the subscription");
  });
  ({ fake, receiver, app, ada, accountId } = story);
}, 180_000);

afterAll(async () => {
  await story?.close();
});

describe("an Outlook inbox subscription after Graph's missed lifecycle notification", () => {
  test("is made with the inbox's delta position: created messages received from now on, nothing of the mailbox read", async () => {
    expect((await accountSubscriptions(app, ada, accountId)).map((s) => [s.resource, s.status])).toEqual([[INBOX, "ACTIVE"]]);
    expect(fake.mailDeltaRequests).toHaveLength(1);
    const first = new URL(fake.mailDeltaRequests[0], "http://graph");
    expect(first.pathname).toBe("/api/v1.0/me/mailFolders('Inbox')/messages/delta");
    expect(first.searchParams.get("changeType")).toBe("created");
    expect(first.searchParams.get("$filter")).toMatch(/^receivedDateTime ge \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(fake.mailDeltaLinks).toHaveLength(1);
  });

  test("the messages Graph could not announce are forwarded once each; one a notification brought is not forwarded again", async () => {
    clock.advance(60_000);
    expect(await fake.receiveMessage("Delivered")).toEqual([202]);
    expect((await received()).map((e) => (e.payload as { subject: string }).subject)).toEqual(["Delivered"]);

    fake.loseNotifications(true);
    for (const subject of ["Lost 1", "Lost 2", "Lost 3"]) {
      clock.advance(1_000);
      expect(await fake.receiveMessage(subject)).toEqual([]);
    }
    // Read since it was forwarded: its etag is new. An older message read: listed by the delta whatever its filter.
    fake.readMessage(fake.messageId("Delivered"));
    fake.readMessage(fake.messageId("Before the subscription"));
    fake.loseNotifications(false);
    expect((await received()).length).toBe(1);

    const requests = fake.mailDeltaRequests.length;
    expect(await fake.lifecycle(inbox().id, "missed")).toBe(202);
    // The stored delta link, then its next pages (five entries, two a page).
    expect(tokenOf(fake.mailDeltaRequests[requests])).toBe(tokenOf(fake.mailDeltaLinks[0]));
    expect(fake.mailDeltaRequests.slice(requests + 1).every((r) => new URL(r, "http://graph").searchParams.has("$skiptoken"))).toBe(true);
    expect(fake.mailDeltaRequests.length - requests).toBe(3);

    const stored = await received();
    expect(stored.map((e) => (e.payload as { subject: string }).subject).sort()).toEqual(["Delivered", "Lost 1", "Lost 2", "Lost 3"]);
    expect(stored.find((e) => (e.payload as { subject: string }).subject === "Lost 2")!.payload).toMatchObject({ id: fake.messageId("Lost 2"), isRead: false });
    await receiver.waitFor((r) => r.length >= 4, 20_000);
    expect(forwardedSubjects()).toEqual(["Delivered", "Lost 1", "Lost 2", "Lost 3"]);
  });

  test("the next missed reads on from the stored delta link: only what changed since is forwarded", async () => {
    fake.loseNotifications(true);
    clock.advance(1_000);
    await fake.receiveMessage("Lost 4");
    fake.loseNotifications(false);
    const requests = fake.mailDeltaRequests.length;
    const stored = fake.mailDeltaLinks[fake.mailDeltaLinks.length - 1];
    expect(await fake.lifecycle(inbox().id, "missed")).toBe(202);
    expect(fake.mailDeltaRequests.slice(requests).map(tokenOf)).toEqual([tokenOf(stored)]);
    expect((await received()).length).toBe(5);

    // Graph sending missed again with nothing new forwards nothing.
    expect(await fake.lifecycle(inbox().id, "missed")).toBe(202);
    expect((await received()).length).toBe(5);
    await receiver.waitFor((r) => r.length >= 5, 20_000);
    expect(forwardedSubjects()).toEqual(["Delivered", "Lost 1", "Lost 2", "Lost 3", "Lost 4"]);
  });
});
