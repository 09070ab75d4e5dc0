/**
 * Pinterest API v5: OAuth 2.0 authorization code, comma-separated scopes, HTTP Basic client
 * authentication at the token endpoint; 30-day access tokens and refresh tokens. The identity is
 * `GET /v5/user_account`. No webhook section: Pinterest offers no webhooks for account data.
 * Polled: the user's own Pins are read on a schedule from the Pin list (the first page, newest first
 * as observed; the order is not documented).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "pinterest",
  displayName: "Pinterest",
  category: "marketing",
  description: "Read the boards, pins and analytics of a Pinterest account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#e60023"/>' +
    '<circle cx="12" cy="12" r="5" fill="none" stroke="#fff" stroke-width="2.2"/></svg>',
  docs: [
    "https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/",
    "https://developers.pinterest.com/docs/api/v5/user_account-get/",
    "https://developers.pinterest.com/docs/api/v5/pins-list/",
    "https://developers.pinterest.com/docs/reference/ratelimits/",
  ],
  oauth: {
    authorizeUrl: "https://www.pinterest.com/oauth/",
    tokenUrl: "https://api.pinterest.com/v5/oauth/token",
    scopes: ["user_accounts:read", "boards:read", "pins:read"],
    scopeDescriptions: {
      "user_accounts:read": "Read your Pinterest profile",
      "boards:read": "See your public boards",
      "pins:read": "See your public Pins",
    },
    scopeSeparator: ",",
    pkce: false,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  identity: {
    path: "/v5/user_account",
    idPath: "id",
    displayNamePath: "username",
    metadata: { accountType: "account_type" },
  },
  api: { baseUrl: "https://api.pinterest.com" },
  triggers: [
    {
      name: "pin_created",
      displayName: "Pin created",
      description: "The user created or saved a Pin (read from their Pin list on a schedule).",
      providerEvent: "GET /v5/pins",
      // One Pin as the list answers it.
      samplePayload: {
        id: "813744226420795884",
        created_at: "2026-01-01T10:00:00",
        link: "https://www.pinterest.com/",
        title: "Summer salads",
        description: "Five salads for hot days",
        alt_text: null,
        board_id: "549755885175",
        board_section_id: null,
        board_owner: { username: "pinterest_user" },
        media: { media_type: "image" },
      },
    },
  ],
  polling: {
    triggers: {
      // No "since" filter: the first page is read and only Pins newer than the newest seen are forwarded.
      pin_created: {
        request: { path: "/v5/pins", query: { page_size: "100" } },
        items: "items",
        id: "id",
        version: "created_at",
        occurredAt: ["created_at"],
        cursor: { from: "version" },
      },
    },
  },
});
