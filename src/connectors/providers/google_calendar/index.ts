/**
 * Google Calendar: Google's OAuth 2.0 for web server apps (offline access for a refresh token), and
 * push channels on the events of each calendar the connection watches (`calendar_id` resources;
 * the primary calendar when it names none): made with events.watch (a `web_hook`
 * channel to the deployment's inbound URL with its own `token`), never renewable (a new channel is
 * made before the old one expires, then the old one stopped with channels.stop). Notifications only
 * say "changed"; changes.ts reads them with events.list and a sync token.
 */
import { declareConnector } from "../../declaration.ts";
import { googleOAuth } from "../gmail/google.ts";
import { readCalendarChanges, startCalendarChanges } from "./changes.ts";

const sampleEvent = {
  kind: "calendar#event",
  etag: '"3391234567890000"',
  id: "5k2p8q1r9s0t3u4v6w7x8y9z0a",
  status: "confirmed",
  htmlLink: "https://www.google.com/calendar/event?eid=NWsycDhxMXI5czB0M3U0djZ3N3g4eTl6MGEgYWxpY2VAZXhhbXBsZS5jb20",
  created: "2026-01-01T09:00:00.000Z",
  updated: "2026-01-01T09:00:00.500Z",
  summary: "Quarterly review",
  organizer: { email: "alice@example.com", self: true },
  start: { dateTime: "2026-01-05T10:00:00Z" },
  end: { dateTime: "2026-01-05T11:00:00Z" },
  iCalUID: "5k2p8q1r9s0t3u4v6w7x8y9z0a@google.com",
  sequence: 0,
};

export default declareConnector({
  name: "google_calendar",
  displayName: "Google Calendar",
  category: "calendar",
  description: "Read-only access to the calendars and events of a Google account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1a73e8"/>' +
    '<rect x="5" y="6.5" width="14" height="12.5" rx="1.5" fill="#fff"/><rect x="5" y="6.5" width="14" height="3.5" fill="#d2e3fc"/>' +
    '<path d="M8 4.5v3.5M16 4.5v3.5" stroke="#fff" stroke-width="1.8" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.google.com/identity/protocols/oauth2/web-server",
    "https://developers.google.com/calendar/api/auth",
    "https://developers.google.com/calendar/api/v3/reference/calendarList/get",
    "https://developers.google.com/calendar/api/guides/push",
    "https://developers.google.com/calendar/api/v3/reference/events/watch",
    "https://developers.google.com/calendar/api/v3/reference/channels/stop",
    "https://developers.google.com/calendar/api/guides/sync",
    "https://developers.google.com/calendar/api/v3/reference/events/list",
  ],
  oauth: googleOAuth({
    "https://www.googleapis.com/auth/calendar.readonly": "See and download any calendar you can access",
  }),
  // A calendar to watch (its id from calendarList: an address such as team@group.calendar.google.com);
  // a connection naming none watches its primary calendar, as before resources existed.
  params: [
    {
      name: "calendar_id",
      description: "The id of a calendar to watch (calendarList's id, e.g. an address ending in @group.calendar.google.com)",
      pattern: "^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$",
      example: "team@group.calendar.google.com",
      in: "path",
      optional: true,
      default: "primary",
    },
  ],
  // The primary calendar's id is the account's email address.
  identity: {
    path: "/calendar/v3/users/me/calendarList/primary",
    idPath: "id",
    displayNamePath: "summary",
    lowercaseId: true,
    metadata: { timeZone: "timeZone" },
  },
  api: { baseUrl: "https://www.googleapis.com" },
  subscription: {
    // One channel per watched calendar (the primary one when none is named); it reports every change.
    resources: [{ resource: "{calendar_id}", triggers: { event_created: ["events"], event_updated: ["events"], event_cancelled: ["events"] } }],
    create: {
      method: "POST",
      path: "/calendar/v3/calendars/{resource}/events/watch",
      // `expiration` in Unix milliseconds; Google may answer a shorter one (events channels last at most about a week).
      body: { id: "{channelId}", type: "web_hook", address: "{notificationUrl}", token: "{secret}", expiration: "{expiresAtMs}" },
    },
    delete: { method: "POST", path: "/calendar/v3/channels/stop", body: { id: "{providerId}", resourceId: "{providerResourceId}" } },
    answer: { idPath: "id", resourceIdPath: "resourceId", expiresPath: "expiration", expiresFormat: "epoch_ms" },
    lifetimeSeconds: 7 * 24 * 3600,
    secret: "generated",
    notification: {
      providerId: { header: "x-goog-channel-id" },
      secret: { header: "x-goog-channel-token" },
    },
  },
  changes: { read: readCalendarChanges, start: startCalendarChanges },
  triggers: [
    {
      name: "event_created",
      providerEvent: "event.created",
      displayName: "Event created",
      description: "An event was added to the primary calendar (the Calendar event resource).",
      samplePayload: sampleEvent,
    },
    {
      name: "event_updated",
      providerEvent: "event.updated",
      displayName: "Event updated",
      description: "An event of the primary calendar changed (the Calendar event resource as it is now).",
      samplePayload: { ...sampleEvent, updated: "2026-01-02T08:30:00.000Z", summary: "Quarterly review (moved)", sequence: 1, start: { dateTime: "2026-01-06T10:00:00Z" }, end: { dateTime: "2026-01-06T11:00:00Z" } },
    },
    {
      name: "event_cancelled",
      providerEvent: "event.cancelled",
      displayName: "Event cancelled",
      description: "An event of the primary calendar was cancelled or deleted (Calendar keeps it with status cancelled).",
      samplePayload: { kind: "calendar#event", etag: '"3391234567999000"', id: "5k2p8q1r9s0t3u4v6w7x8y9z0a", status: "cancelled", updated: "2026-01-03T12:00:00.000Z" },
    },
  ],
});
