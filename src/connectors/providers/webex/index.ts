/**
 * Webex integrations: OAuth 2.0 authorization code with space-separated scopes and PKCE; 14-day
 * access tokens and 90-day refresh tokens. The identity is `GET /v1/people/me`. No webhook section: Webex
 * webhooks are created through the API with the user's token (per-account), each with its own secret.
 * Polled: spaces are read on a schedule from the room list, most recent activity first
 * (`sortBy=lastactivity`).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "webex",
  displayName: "Webex",
  category: "video",
  description: "Read the meetings, rooms and messages of a Webex user.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#07c1e4"/>' +
    '<path d="M5 8h10v8H5zM15 11l4-2.5v7L15 13" fill="none" stroke="#fff" stroke-width="1.8" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developer.webex.com/docs/integrations",
    "https://developer.webex.com/docs/api/v1/people/get-my-own-details",
    "https://developer.webex.com/docs/api/guides/webhooks",
    "https://developer.webex.com/docs/api/v1/rooms/list-rooms",
    "https://developer.webex.com/docs/basics#rate-limiting",
  ],
  oauth: {
    authorizeUrl: "https://webexapis.com/v1/authorize",
    tokenUrl: "https://webexapis.com/v1/access_token",
    scopes: ["spark:people_read", "spark:rooms_read", "meeting:schedules_read"],
    scopeDescriptions: {
      "spark:people_read": "Read your Webex profile and your company directory",
      "spark:rooms_read": "List the Webex spaces you belong to",
      "meeting:schedules_read": "Read your scheduled Webex meetings",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/v1/people/me",
    idPath: "id",
    displayNamePath: "displayName",
    metadata: { email: "emails[]", orgId: "orgId" },
  },
  api: { baseUrl: "https://webexapis.com" },
  triggers: [
    {
      name: "room_activity",
      displayName: "Activity in a space",
      description: "A space the user belongs to had new activity (a message, a member change) or was created, read from the room list on a schedule.",
      providerEvent: "GET /v1/rooms",
      // One room as the list answers it.
      samplePayload: {
        id: "Y2lzY29zcGFyazovL3VzL1JPT00vYmJjZWIxYWQtNDNmMS0zYjU4LTkxNDctZjE0YmIwYzRkMTU0",
        title: "Project Unicorn - Sprint 0",
        type: "group",
        isLocked: true,
        teamId: "Y2lzY29zcGFyazovL3VzL1JPT00vNjRlNDVhZTAtYzQ2Yi0xMWU1LTlkZjktMGQ0MWUzNDIxOTcz",
        lastActivity: "2026-01-01T10:00:00.000Z",
        creatorId: "Y2lzY29zcGFyazovL3VzL1BFT1BMRS9mNWIzNjE4Ny1jOGRkLTQ3MjctOGIyZi1mOWM0NDdmMjkwNDY",
        created: "2026-01-01T09:00:00.000Z",
      },
    },
  ],
  polling: {
    triggers: {
      // Most recent activity first; the position is the newest `lastActivity` seen.
      room_activity: {
        request: { path: "/v1/rooms", query: { sortBy: "lastactivity", max: "100" } },
        items: "items",
        id: "id",
        version: "lastActivity",
        occurredAt: ["lastActivity"],
        cursor: { from: "version" },
      },
    },
  },
});
