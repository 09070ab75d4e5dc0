/**
 * Pinterest API v5: OAuth 2.0 authorization code, comma-separated scopes, HTTP Basic client
 * authentication at the token endpoint; 30-day access tokens and refresh tokens. The identity is
 * `GET /v5/user_account`. Connect only: Pinterest offers no webhooks for account data.
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
  ],
  oauth: {
    authorizeUrl: "https://www.pinterest.com/oauth/",
    tokenUrl: "https://api.pinterest.com/v5/oauth/token",
    apiUrl: "https://api.pinterest.com",
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
});
