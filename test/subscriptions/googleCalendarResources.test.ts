/**
 * Google Calendar watches the calendars a connection names as resources (`calendar_id`), the primary
 * calendar when it names none: a channel per calendar (events.watch on
 * `/calendars/{calendarId}/events/watch`, developers.google.com/calendar/api/v3/reference/events/watch),
 * and the primary one's channel stopped once a calendar is named. Changes a watched calendar's channel
 * announces are read from that calendar and forwarded with their `resource`.
 *
 * Here each channel's `sync` message reaches Switchyard before the watch call is answered, as it may
 * from Google: the position is taken when the channel is made, so the first change is not lost.
 */
import { expect, test } from "vitest";
import { fakeClock } from "../helpers/clock.ts";
import { checkedFetch as fetch } from "../helpers/openapi.ts";
import { accountSubscriptions, connectedCalendarForFile } from "./helpers.ts";

const TEAM = "team@group.calendar.google.com";
const calendar = connectedCalendarForFile(fakeClock(new Date()));

const base = () => `${calendar.app.url}/api/v1/connections/google_calendar/alice`;
const headers = () => ({ "x-api-key": calendar.ada.apiKey, "content-type": "application/json" });

test("no calendar named: the primary calendar is watched (watching ACCOUNT)", async () => {
  const { fake, app } = calendar;
  await app.app.subscriptions.runOnce(true);
  await fake.idle();
  expect(fake.watchedCalendars).toEqual(["primary"]);
  expect(await (await fetch(base(), { headers: headers() })).json()).toMatchObject({ watching: "ACCOUNT", resources: [] });
});

test("a calendar named as a resource gets its own channel, and the primary one is stopped; its changes carry the resource", async () => {
  const { fake, app, ada, accountId } = calendar;
  const response = await fetch(`${base()}/resources`, { method: "POST", headers: headers(), body: JSON.stringify({ params: { calendar_id: TEAM } }) });
  expect(response.status).toBe(201);
  await app.app.subscriptions.runOnce(true);
  await fake.idle();
  expect(fake.watchedCalendars).toEqual(["primary", TEAM]);
  expect(fake.live()).toHaveLength(1);
  const live = (await accountSubscriptions(app, ada, accountId)).filter((s) => s.status !== "DELETED");
  expect(live.map((s) => [s.resource, s.status])).toEqual([[TEAM, "ACTIVE"]]);

  expect((await fake.createEvent("Team offsite")).statuses).toEqual([202]);
  const log = await app.gql<{ deployment: { eventLog: { nodes: { trigger: string; resource: unknown }[] } } }, { id: string }>(
    `query($id: ID!) { deployment(id: $id) { eventLog { nodes { trigger resource } } } }`,
    { id: ada.deploymentId },
    { token: ada.token },
  );
  // (the connection's own lifecycle event, switchyard.connection_created, is tied to no resource)
  expect(log.data?.deployment.eventLog.nodes.filter((e) => e.trigger.startsWith("event_"))).toEqual([{ trigger: "event_created", resource: { calendar_id: TEAM } }]);
});
