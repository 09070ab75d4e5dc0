/**
 * Reddit: OAuth 2.0 authorization code with `duration=permanent` for a refresh token; HTTP Basic
 * client authentication; space-separated scopes. The API is served from oauth.reddit.com; the identity is
 * `GET /api/v1/me`. No webhook section: Reddit has no webhooks.
 * Polled: the user's inbox is read on a schedule (`/message/inbox`, newest first; needs the
 * `privatemessages` scope).
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
    "https://www.reddit.com/dev/api/#GET_message_inbox",
    "https://github.com/reddit-archive/reddit/wiki/API",
  ],
  oauth: {
    authorizeUrl: "https://www.reddit.com/api/v1/authorize",
    tokenUrl: "https://www.reddit.com/api/v1/access_token",
    scopes: ["identity", "read", "privatemessages"],
    scopeDescriptions: {
      identity: "See your Reddit username and signup date",
      read: "Read posts and comments",
      privatemessages: "Read your inbox (messages, comment replies and mentions)",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_basic",
    extraAuthorizeParams: { duration: "permanent" },
    refresh: true,
    // github.com/reddit-archive/reddit/wiki/OAuth2 ("Manually revoking a token"): the token as the
    // form field `token`, HTTP Basic as for the token request; revoking a refresh token revokes its
    // access tokens too; 204, even for a token that was never valid.
    revocation: { url: "https://www.reddit.com/api/v1/revoke_token", method: "POST", tokenParam: "token", body: "form", clientAuth: "client_secret_basic", token: "refresh" },
  },
  identity: {
    path: "/api/v1/me",
    idPath: "id",
    displayNamePath: "name",
  },
  api: { baseUrl: "https://oauth.reddit.com" },
  triggers: [
    {
      name: "inbox_item",
      displayName: "Inbox message",
      description: "A private message, comment reply or username mention arrived in the user's inbox (read on a schedule).",
      providerEvent: "GET /message/inbox",
      // One listing child as the inbox answers it (a private message).
      samplePayload: {
        kind: "t4",
        data: {
          id: "2bx8kc",
          name: "t4_2bx8kc",
          author: "spez",
          dest: "example_user",
          subject: "Hello",
          body: "Welcome to the community!",
          was_comment: false,
          new: true,
          created_utc: 1767261600,
          context: "",
        },
      },
    },
  ],
  polling: {
    // 100 requests a minute per OAuth client, shared by every account: one read every five minutes per account.
    minIntervalSeconds: 300,
    triggers: {
      inbox_item: {
        request: { path: "/message/inbox", query: { limit: "100", raw_json: "1" } },
        items: "data.children",
        id: "data.name",
        version: "data.created_utc",
        occurredAt: ["data.created_utc"],
        cursor: { from: "version" },
      },
    },
  },
});
