/**
 * Front: OAuth 2.0 authorization code; the token request authenticates with HTTP Basic (client id
 * and secret); access tokens expire and come with refresh tokens. `GET /me` names the company the token
 * belongs to (`cmp_…`). No webhook section: Front's application webhooks are app-level and routed by
 * `authorization.id` (the company id), but they sign `{timestamp}:{body}` with a millisecond timestamp
 * and are validated with an `X-Front-Challenge` echo, neither of which the shared schemes express yet.
 * Polled: the company's events are read on a schedule from the events list (newest first, `q[after]`
 * the newest seen).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "front",
  displayName: "Front",
  category: "support",
  description: "Read the conversations, inboxes and contacts of a Front company.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#a857f1"/>' +
    '<path d="M6 7h12v8h-7l-3 3v-3H6z" fill="none" stroke="#fff" stroke-width="1.8" stroke-linejoin="round"/></svg>',
  docs: [
    "https://dev.frontapp.com/docs/oauth",
    "https://dev.frontapp.com/reference/api-token-details",
    "https://dev.frontapp.com/docs/application-webhooks",
    "https://dev.frontapp.com/reference/list-events",
    "https://dev.frontapp.com/docs/rate-limiting",
  ],
  oauth: {
    authorizeUrl: "https://app.frontapp.com/oauth/authorize",
    tokenUrl: "https://app.frontapp.com/oauth/token",
    // Front grants what the app's OAuth feature is configured for; no scope parameter.
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  identity: {
    path: "/me",
    idPath: "id",
    displayNamePath: "name",
  },
  api: { baseUrl: "https://api2.frontapp.com" },
  triggers: [
    {
      name: "event_created",
      displayName: "Inbox event",
      description: "Something happened in an inbox the user can see: a message in or out, an assignment, a tag, a comment (read from the events list on a schedule).",
      providerEvent: "GET /events",
      // One event as the list answers it (an inbound message).
      samplePayload: {
        _links: { self: "https://yourCompany.api.frontapp.com/events/evt_55c8c149" },
        id: "evt_55c8c149",
        type: "inbound",
        emitted_at: 1767261600.123,
        conversation: { id: "cnv_55c8c149", subject: "Order 1042", status: "unassigned" },
        source: { _meta: { type: "inboxes" }, data: [{ id: "inb_55c8c149", name: "Support" }] },
        target: { _meta: { type: "message" }, data: { id: "msg_55c8c149", type: "email", is_inbound: true, blurb: "Where is my order?" } },
      },
    },
  ],
  polling: {
    triggers: {
      // Newest first; `q[after]` takes a time in seconds (up to 3 decimals), the form `emitted_at` has.
      event_created: {
        request: { path: "/events", query: { limit: "100", "q[after]": "{cursor}" } },
        items: "_results",
        id: "id",
        version: "emitted_at",
        occurredAt: ["emitted_at"],
        cursor: { from: "version" },
      },
    },
  },
});
