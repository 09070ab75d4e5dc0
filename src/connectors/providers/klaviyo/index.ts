/**
 * Klaviyo: OAuth 2.0 authorization code with PKCE (required) and HTTP Basic client authentication
 * at the token endpoint; space-separated scopes; one-hour access tokens with refresh tokens. The identity
 * is the account (`GET /api/accounts/`, with the `revision` header Klaviyo requires). Connect only:
 * Klaviyo webhooks are created per account through the API with its token (per-account).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "klaviyo",
  displayName: "Klaviyo",
  category: "marketing",
  description: "Read the profiles, lists and campaigns of a Klaviyo account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#232426"/>' +
    '<path d="M5 13c2-4 4-4 7 0s5 4 7 0" fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.klaviyo.com/en/docs/set_up_oauth",
    "https://developers.klaviyo.com/en/reference/get_accounts",
    "https://developers.klaviyo.com/en/reference/api_overview#versioning",
  ],
  oauth: {
    authorizeUrl: "https://www.klaviyo.com/oauth/authorize",
    tokenUrl: "https://a.klaviyo.com/oauth/token",
    apiUrl: "https://a.klaviyo.com",
    scopes: ["accounts:read", "profiles:read", "lists:read"],
    scopeDescriptions: {
      "accounts:read": "Read your Klaviyo account details",
      "profiles:read": "Read the profiles in your Klaviyo account",
      "lists:read": "Read your lists and segments",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  identity: {
    path: "/api/accounts/",
    headers: { accept: "application/vnd.api+json", revision: "2024-10-15" },
    idPath: "data[].id",
    displayNamePath: "data[].attributes.contact_information.organization_name",
  },
});
