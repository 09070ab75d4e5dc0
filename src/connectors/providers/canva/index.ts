/**
 * Canva Connect: OAuth 2.0 authorization code with PKCE (required, S256), HTTP Basic client
 * authentication, space-separated scopes; four-hour access tokens and single-use refresh tokens. The
 * identity is `GET /rest/v1/users/me` (user and team ids). Connect only: Canva Connect's notifications
 * are not generally available webhooks.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "canva",
  displayName: "Canva",
  category: "design",
  description: "Read the designs and folders of a Canva user.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#7d2ae8"/>' +
    '<circle cx="12" cy="12" r="5" fill="none" stroke="#fff" stroke-width="2.2"/></svg>',
  docs: [
    "https://www.canva.dev/docs/connect/authentication/",
    "https://www.canva.dev/docs/connect/api-reference/users/users-me/",
    "https://www.canva.dev/docs/connect/appendix/scopes/",
  ],
  oauth: {
    authorizeUrl: "https://www.canva.com/api/oauth/authorize",
    tokenUrl: "https://api.canva.com/rest/v1/oauth/token",
    apiUrl: "https://api.canva.com",
    scopes: ["profile:read", "design:meta:read"],
    scopeDescriptions: {
      "profile:read": "Read your Canva display name",
      "design:meta:read": "Read the titles and details of your designs",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  identity: {
    path: "/rest/v1/users/me",
    idPath: "team_user.user_id",
    metadata: { teamId: "team_user.team_id" },
  },
});
