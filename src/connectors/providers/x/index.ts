/**
 * X (Twitter) API v2: OAuth 2.0 authorization code with PKCE (required); confidential clients
 * authenticate with HTTP Basic; `offline.access` adds a refresh token (access tokens last two hours).
 * The identity is `GET /2/users/me`. Connect only: the Account Activity API's webhooks need an enterprise
 * subscription and a per-webhook CRC handshake.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "x",
  displayName: "X (Twitter)",
  category: "marketing",
  description: "Read the posts, followers and profile of an X account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0f1419"/>' +
    '<path d="M12 5v14M5 12h14M7.5 7.5l9 9M16.5 7.5l-9 9" stroke="#fff" stroke-width="1.5" stroke-linecap="round"/></svg>',
  docs: [
    "https://docs.x.com/resources/fundamentals/authentication/oauth-2-0/authorization-code",
    "https://docs.x.com/resources/fundamentals/authentication/oauth-2-0/user-access-token",
    "https://docs.x.com/x-api/users/user-lookup-me",
  ],
  oauth: {
    authorizeUrl: "https://x.com/i/oauth2/authorize",
    tokenUrl: "https://api.x.com/2/oauth2/token",
    apiUrl: "https://api.x.com",
    scopes: ["tweet.read", "users.read", "offline.access"],
    scopeDescriptions: {
      "tweet.read": "Read posts you can see",
      "users.read": "Read profile information",
      "offline.access": "Keep this access while you are away (until you revoke it)",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  identity: {
    path: "/2/users/me",
    idPath: "data.id",
    displayNamePath: "data.name",
    metadata: { username: "data.username" },
  },
});
