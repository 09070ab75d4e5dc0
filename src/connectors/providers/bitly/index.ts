/**
 * Bitly API v4: OAuth 2.0 authorization code (the web flow; no scopes); access tokens do not expire.
 * The identity is `GET /v4/user` (`login`). Bitly has no account webhooks: new links are polled from the user's default group.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "bitly",
  displayName: "Bitly",
  category: "marketing",
  description: "Read and create the short links of a Bitly account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#ee6123"/>' +
    '<path d="M5 13c2-4 4-4 7 0s5 4 7 0" fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round"/></svg>',
  docs: [
    "https://dev.bitly.com/docs/getting-started/authentication/",
    "https://dev.bitly.com/api-reference/#getUser",
    "https://dev.bitly.com/api-reference/#getBitlinksByGroup",
  ],
  oauth: {
    authorizeUrl: "https://bitly.com/oauth/authorize",
    tokenUrl: "https://api-ssl.bitly.com/oauth/access_token",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/v4/user",
    idPath: "login",
    displayNamePath: "name",
    metadata: { defaultGroup: "default_group_guid" },
  },
  api: { baseUrl: "https://api-ssl.bitly.com" },
  triggers: [
    {
      name: "link_created",
      displayName: "Link created",
      description: "A Bitlink was created in the user's default group (read from the group's link list on a schedule).",
      providerEvent: "GET /v4/groups/{group_guid}/bitlinks",
      // One Bitlink as the list answers it.
      samplePayload: {
        created_at: "2026-01-01T10:00:00+0000",
        id: "bit.ly/3xYzAbC",
        link: "https://bit.ly/3xYzAbC",
        custom_bitlinks: [],
        long_url: "https://example.com/launch",
        title: "Launch page",
        archived: false,
        created_by: "jdoe",
        client_id: "a5e8cebb233c5d07e5c553e917dffb92fec5264d",
        tags: [],
        deeplinks: [],
        references: { group: "https://api-ssl.bitly.com/v4/groups/Ba1bc23dE4F" },
      },
    },
  ],
  polling: {
    triggers: {
      // Newest first in the default group (`default_group_guid` from GET /v4/user, kept as metadata).
      link_created: {
        request: { path: "/v4/groups/{defaultGroup}/bitlinks", query: { size: "100" } },
        items: "links",
        id: "id",
        version: "created_at",
        occurredAt: ["created_at"],
        cursor: { from: "version" },
      },
    },
  },
});
