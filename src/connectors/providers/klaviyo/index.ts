/**
 * Klaviyo: OAuth 2.0 authorization code with PKCE (required) and HTTP Basic client authentication
 * at the token endpoint; space-separated scopes; one-hour access tokens with refresh tokens. The identity
 * is the account (`GET /api/accounts/`, with the `revision` header Klaviyo requires). No webhook section:
 * Klaviyo webhooks are created per account through the API with its token (per-account).
 * Polled: events are read on a schedule from Get Events, newest first after the newest seen
 * (`filter=greater-than(datetime,…)`).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "klaviyo",
  displayName: "Klaviyo",
  category: "marketing",
  description: "Read the profiles, lists and campaigns of a Klaviyo account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#232426"/>' +
    '<path d="M5 13c2-4 4-4 7 0s5 4 7 0" fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.klaviyo.com/en/docs/set_up_oauth",
    "https://developers.klaviyo.com/en/reference/get_accounts",
    "https://developers.klaviyo.com/en/reference/api_overview#versioning",
    "https://developers.klaviyo.com/en/reference/get_events",
    "https://developers.klaviyo.com/en/docs/filtering_",
  ],
  oauth: {
    authorizeUrl: "https://www.klaviyo.com/oauth/authorize",
    tokenUrl: "https://a.klaviyo.com/oauth/token",
    scopes: ["accounts:read", "profiles:read", "lists:read", "events:read"],
    scopeDescriptions: {
      "accounts:read": "Read your Klaviyo account details",
      "profiles:read": "Read the profiles in your Klaviyo account",
      "lists:read": "Read your lists and segments",
      "events:read": "Read the events (opens, clicks, orders…) recorded in your account",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  identity: {
    path: "/api/accounts/",
    headers: { accept: "application/vnd.api+json", revision: "2024-10-15" },
    idPath: "data[].id",
    displayNamePath: "data[].attributes.contact_information.organization_name",
  },
  api: { baseUrl: "https://a.klaviyo.com" },
  triggers: [
    {
      name: "event_created",
      displayName: "Event recorded",
      description: "An event was recorded for a profile (an email opened, an order placed, any metric), read from the events list on a schedule.",
      providerEvent: "GET /api/events",
      // One event resource as the list answers it.
      samplePayload: {
        type: "event",
        id: "4sDShKQjrdT",
        attributes: {
          timestamp: 1767261600,
          event_properties: { "Campaign Name": "Winter sale", Subject: "30% off everything" },
          datetime: "2026-01-01T10:00:00+00:00",
          uuid: "5d7c3c00-e6f1-11f0-8001-7f7c8c3d3a2c",
        },
        relationships: {
          profile: { data: { type: "profile", id: "01GDDKASAP8TKDDA2GRZDSVP4H" } },
          metric: { data: { type: "metric", id: "RESQ6t" } },
        },
        links: { self: "https://a.klaviyo.com/api/events/4sDShKQjrdT/" },
      },
    },
  ],
  polling: {
    triggers: {
      // Newest first (`-datetime`), after the newest seen; every request names its revision.
      event_created: {
        request: {
          path: "/api/events",
          query: { sort: "-datetime", filter: "greater-than(datetime,{cursor})" },
          headers: { revision: "2024-10-15" },
        },
        items: "data",
        id: "id",
        version: "attributes.datetime",
        occurredAt: ["attributes.datetime"],
        cursor: { from: "version" },
      },
    },
  },
});
