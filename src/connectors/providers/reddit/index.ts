/**
 * Reddit: OAuth 2.0 authorization code with `duration=permanent` for a refresh token; HTTP Basic
 * client authentication; space-separated scopes. The API is served from oauth.reddit.com; the identity is
 * `GET /api/v1/me`. Connect only: Reddit has no webhooks.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "reddit",
  displayName: "Reddit",
  category: "other",
  description: "Read the posts, comments and subreddits of a Reddit user.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#ff4500"/>' +
    '<path d="M6 7h12v8h-7l-3 3v-3H6z" fill="none" stroke="#fff" stroke-width="1.8" stroke-linejoin="round"/></svg>',
  docs: [
    "https://github.com/reddit-archive/reddit/wiki/OAuth2",
    "https://www.reddit.com/dev/api/#GET_api_v1_me",
  ],
  oauth: {
    authorizeUrl: "https://www.reddit.com/api/v1/authorize",
    tokenUrl: "https://www.reddit.com/api/v1/access_token",
    apiUrl: "https://oauth.reddit.com",
    scopes: ["identity", "read"],
    scopeDescriptions: {
      identity: "See your Reddit username and signup date",
      read: "Read posts and comments",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_basic",
    extraAuthorizeParams: { duration: "permanent" },
    refresh: true,
  },
  identity: {
    path: "/api/v1/me",
    idPath: "id",
    displayNamePath: "name",
  },
});
