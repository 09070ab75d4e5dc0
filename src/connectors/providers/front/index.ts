/**
 * Front: OAuth 2.0 authorization code; the token request authenticates with HTTP Basic (client id
 * and secret); access tokens expire and come with refresh tokens. `GET /me` names the company the token
 * belongs to (`cmp_…`). Connect only for now: Front's application webhooks are app-level and routed by
 * `authorization.id` (the company id), but they sign `{timestamp}:{body}` with a millisecond timestamp
 * and are validated with an `X-Front-Challenge` echo, neither of which the shared schemes express yet.
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
  ],
  oauth: {
    authorizeUrl: "https://app.frontapp.com/oauth/authorize",
    tokenUrl: "https://app.frontapp.com/oauth/token",
    apiUrl: "https://api2.frontapp.com",
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
});
