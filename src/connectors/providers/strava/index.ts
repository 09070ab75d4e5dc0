/**
 * Strava: OAuth 2.0 authorization code, comma-separated scopes, client credentials in the body;
 * six-hour access tokens with refresh tokens. The identity is the authenticated athlete
 * (`GET /api/v3/athlete`). Connect only: Strava's webhook subscription is app-level (one per app, events
 * name the athlete in `owner_id`) but its events carry no signature or secret to verify.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "strava",
  displayName: "Strava",
  category: "other",
  description: "Read the activities and profile of a Strava athlete.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#fc4c02"/>' +
    '<path d="M12 6l7 12H5z" fill="#fff"/></svg>',
  docs: [
    "https://developers.strava.com/docs/authentication/",
    "https://developers.strava.com/docs/reference/#api-Athletes-getLoggedInAthlete",
    "https://developers.strava.com/docs/webhooks/",
  ],
  oauth: {
    authorizeUrl: "https://www.strava.com/oauth/authorize",
    tokenUrl: "https://www.strava.com/oauth/token",
    apiUrl: "https://www.strava.com",
    scopes: ["read", "activity:read"],
    scopeDescriptions: {
      read: "Read your public profile and segments",
      "activity:read": "Read your activities visible to Everyone and Followers",
    },
    scopeSeparator: ",",
    pkce: false,
    clientAuth: "client_secret_post",
    extraAuthorizeParams: { approval_prompt: "auto" },
    refresh: true,
  },
  identity: {
    path: "/api/v3/athlete",
    idPath: "id",
    displayNamePath: "username",
    metadata: { firstName: "firstname", lastName: "lastname" },
  },
});
