/**
 * X (Twitter) API v2: OAuth 2.0 authorization code with PKCE (required); confidential clients
 * authenticate with HTTP Basic; `offline.access` adds a refresh token (access tokens last two hours).
 * The identity is `GET /2/users/me`.
 * The Account Activity API's webhooks need an enterprise subscription and a per-webhook CRC
 * handshake, so mentions are polled from the user's mentions timeline (a paid access tier).
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
    "https://docs.x.com/x-api/posts/get-mentions",
    "https://docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token",
  ],
  oauth: {
    authorizeUrl: "https://x.com/i/oauth2/authorize",
    tokenUrl: "https://api.x.com/2/oauth2/token",
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
    // docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token ("POST oauth2/revoke"): an
    // access or refresh token as the form field `token`; a confidential client authenticates with
    // HTTP Basic.
    revocation: { url: "https://api.x.com/2/oauth2/revoke", method: "POST", tokenParam: "token", body: "form", clientAuth: "client_secret_basic", token: "refresh" },
  },
  identity: {
    path: "/2/users/me",
    idPath: "data.id",
    displayNamePath: "data.name",
    metadata: { username: "data.username", userId: "data.id" },
  },
  api: { baseUrl: "https://api.x.com" },
  triggers: [
    {
      name: "mention_received",
      displayName: "Mentioned in a post",
      description: "A post mentioning the user was published (read from the user's mentions timeline on a schedule).",
      providerEvent: "GET /2/users/{id}/mentions",
      // One post as the mentions timeline answers it, with the fields asked for.
      samplePayload: {
        id: "1375152598945312768",
        text: "@TwitterDev hello from the docs",
        author_id: "2244994945",
        conversation_id: "1375152598945312768",
        created_at: "2026-01-01T10:00:00.000Z",
        edit_history_tweet_ids: ["1375152598945312768"],
      },
    },
  ],
  polling: {
    // The mentions timeline allows 180 reads per 15 minutes per user on paid access tiers.
    minIntervalSeconds: 60,
    triggers: {
      // Newest first; the user's id comes from GET /2/users/me (kept as metadata).
      mention_received: {
        request: { path: "/2/users/{userId}/mentions", query: { max_results: "100", "tweet.fields": "created_at,author_id,conversation_id" } },
        items: "data",
        id: "id",
        version: "created_at",
        occurredAt: ["created_at"],
        cursor: { from: "version" },
      },
    },
  },
});
