/**
 * Close: OAuth 2.0 authorization code; `all.full_access` is the only data scope, `offline_access`
 * adds a refresh token (access tokens last an hour). The identity is the user who authorized (`GET
 * /api/v1/me/`). No webhook section: Close webhook subscriptions are created per organization through the API
 * with its token (per-account), each with its own signature key.
 * Polled: activities are read on a schedule from the activity list, created after the newest one seen
 * (`date_created__gt`).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "close",
  displayName: "Close",
  category: "crm",
  description: "Read the leads, contacts, opportunities and activities of a Close organization.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1463ff"/>' +
    '<path d="M8 5l2.5 3-1.7 2a9 9 0 0 0 5.2 5.2l2-1.7 3 2.5-1.5 2.5C12 18.5 5.5 12 5.5 6.5z" fill="none" stroke="#fff" stroke-width="1.6" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developer.close.com/topics/authentication-oauth2/",
    "https://developer.close.com/resources/users/",
    "https://developer.close.com/topics/webhooks/",
    "https://developer.close.com/api/resources/activities/list",
    "https://developer.close.com/topics/filter-parameters/",
  ],
  oauth: {
    authorizeUrl: "https://app.close.com/oauth2/authorize",
    tokenUrl: "https://api.close.com/oauth2/token/",
    scopes: ["all.full_access", "offline_access"],
    scopeDescriptions: {
      "all.full_access": "Read and change the data of your Close organization",
      offline_access: "Keep this access while you are away (until you revoke it)",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/api/v1/me/",
    idPath: "id",
    displayNamePath: "email",
    metadata: { firstName: "first_name", lastName: "last_name", organizationId: "organizations[].id" },
  },
  api: { baseUrl: "https://api.close.com" },
  triggers: [
    {
      name: "activity_created",
      displayName: "Activity created",
      description: "A call, email, note, meeting or other activity was logged on a lead (read from the activity list on a schedule).",
      providerEvent: "GET /api/v1/activity/",
      // One activity as the list answers it (a note).
      samplePayload: {
        id: "acti_1sdf9B1mYV6ySxkchvhGYFzKHwWwUzzQ4Jj9z8z4T0J",
        _type: "Note",
        lead_id: "lead_LZfSS9SPBz3kbQyUmKgjFDY9sPNDtpdNvrMXjLnACvJ",
        contact_id: null,
        user_id: "user_04EJPREurd0b3KDozVFqXSRbt2uBjw3QfeYa7ZaGTwI",
        user_name: "Jane Doe",
        organization_id: "orga_bwwWG475zqWiQGur0thQshwVXo8rIYecQHDWFanqhen",
        note: "Call back next week about the renewal.",
        date_created: "2026-01-01T10:00:00.000000+00:00",
        date_updated: "2026-01-01T10:00:00.000000+00:00",
      },
    },
  ],
  polling: {
    triggers: {
      // Newest first (`_order_by=-date_created`), created after the newest seen; `has_more` says another page exists.
      activity_created: {
        request: { path: "/api/v1/activity/", query: { _limit: "100", _order_by: "-date_created", date_created__gt: "{cursor}" } },
        items: "data",
        id: "id",
        version: "date_created",
        occurredAt: ["date_created"],
        cursor: { from: "version" },
      },
    },
  },
});
