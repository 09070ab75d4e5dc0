/**
 * A Calendar channel whose position could not be read when it was made (events.list answered 503)
 * is still made and kept; the first change it announces only takes the position (a full read's
 * `nextSyncToken`, nothing forwarded: what changed before is unknown), and changes after it are
 * forwarded. The `sync` message reaches Switchyard before the watch call is answered, as it may
 * from Google, so it cannot take the position either.
 */
import { expect, test } from "vitest";
import { fakeClock } from "../helpers/clock.ts";
import { accountSubscriptions, connectedCalendarForFile, storedEvents } from "./helpers.ts";

const calendar = connectedCalendarForFile(fakeClock(new Date()));

test("a position Google could not give when the channel was made is taken at the first change, and the next change is forwarded", async () => {
  const { fake, app, ada, accountId } = calendar;
  fake.failNextList();
  await app.app.subscriptions.runOnce(true);
  await fake.idle();
  expect(fake.live()).toHaveLength(1);
  expect((await accountSubscriptions(app, ada, accountId)).map((s) => s.status)).toEqual(["ACTIVE"]);

  expect((await fake.createEvent("Before the position")).statuses).toEqual([202]);
  expect((await fake.createEvent("After the position")).statuses).toEqual([202]);
  const summaries = (await storedEvents(app, ada, "google_calendar")).map((e) => (e.payload as { summary?: string }).summary);
  expect(summaries).toEqual(["After the position"]);
});
