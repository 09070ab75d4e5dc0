/**
 * Eventbrite: OAuth 2.0 authorization code (server-side flow), no scopes; access tokens do not expire.
 * The identity is `GET /v3/users/me/`. Connect only: Eventbrite webhooks are created per organization
 * through the API with its token (per-account) and are not signed.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "eventbrite",
  displayName: "Eventbrite",
  category: "other",
  description: "Read the events, attendees and orders of an Eventbrite organizer.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#f05537"/>' +
    '<path d="M5 8h14v2.5a1.5 1.5 0 0 0 0 3V16H5v-2.5a1.5 1.5 0 0 0 0-3z" fill="none" stroke="#fff" stroke-width="1.7" stroke-linejoin="round"/></svg>',
  docs: [
    "https://www.eventbrite.com/platform/docs/authentication",
    "https://www.eventbrite.com/platform/api#/reference/user/retrieve-your-user/retrieve-your-user",
    "https://www.eventbrite.com/platform/docs/webhooks",
  ],
  oauth: {
    authorizeUrl: "https://www.eventbrite.com/oauth/authorize",
    tokenUrl: "https://www.eventbrite.com/oauth/token",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/v3/users/me/",
    idPath: "id",
    displayNamePath: "name",
    metadata: { email: "emails[].email" },
  },
  api: { baseUrl: "https://www.eventbriteapi.com" },
});
