/**
 * FreshBooks: OAuth 2.0 authorization code with space-separated scopes; twelve-hour access tokens and
 * refresh tokens. The identity is the authorizing user (`GET /auth/api/v1/users/me`), whose business
 * memberships name the accounts. Connect only: FreshBooks webhook callbacks are registered per business
 * account through the API with its token (per-account) and verified per callback.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "freshbooks",
  displayName: "FreshBooks",
  category: "accounting",
  description: "Read the invoices, clients and expenses of a FreshBooks business.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0075dd"/>' +
    '<circle cx="12" cy="12" r="6" fill="none" stroke="#fff" stroke-width="1.8"/><path d="M12 8.5v7M10 10.5h3a1.2 1.2 0 0 1 0 2.4h-2a1.2 1.2 0 0 0 0 2.4h3" fill="none" stroke="#fff" stroke-width="1.3" stroke-linecap="round"/></svg>',
  docs: [
    "https://www.freshbooks.com/api/authentication",
    "https://www.freshbooks.com/api/me_endpoint",
    "https://www.freshbooks.com/api/webhooks",
  ],
  oauth: {
    authorizeUrl: "https://auth.freshbooks.com/oauth/authorize",
    tokenUrl: "https://api.freshbooks.com/auth/oauth/token",
    scopes: ["user:profile:read", "user:invoices:read", "user:clients:read"],
    scopeDescriptions: {
      "user:profile:read": "Read your FreshBooks profile and the businesses you belong to",
      "user:invoices:read": "Read your invoices",
      "user:clients:read": "Read your clients",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/auth/api/v1/users/me",
    idPath: "response.id",
    displayNamePath: "response.email",
    metadata: { firstName: "response.first_name", lastName: "response.last_name", accountId: "response.business_memberships[].business.account_id" },
  },
  api: { baseUrl: "https://api.freshbooks.com" },
});
