/**
 * Harvest (API v2): OAuth 2.0 authorization code on Harvest ID; scopes default to every account the
 * user can reach; 14-day access tokens and refresh tokens. The identity is `GET /api/v2/accounts` on
 * Harvest ID (the user and their accounts). Connect only: Harvest offers no webhooks.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "harvest",
  displayName: "Harvest",
  category: "project_management",
  description: "Read the time entries, projects and invoices of Harvest accounts.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#f36c00"/>' +
    '<circle cx="12" cy="12" r="6" fill="none" stroke="#fff" stroke-width="1.8"/><path d="M12 8.5V12l2.5 2" fill="none" stroke="#fff" stroke-width="1.8" stroke-linecap="round"/></svg>',
  docs: [
    "https://help.getharvest.com/api-v2/authentication-api/authentication/authentication/",
  ],
  oauth: {
    authorizeUrl: "https://id.getharvest.com/oauth2/authorize",
    tokenUrl: "https://id.getharvest.com/api/v2/oauth2/token",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/api/v2/accounts",
    idPath: "user.id",
    displayNamePath: "user.email",
    metadata: { firstName: "user.first_name", lastName: "user.last_name", accountId: "accounts[].id" },
  },
  // The identity lives on Harvest ID; the API (and so the proxy) on api.harvestapp.com, paths `/v2/…`,
  // each request naming its account in `Harvest-Account-Id`: the connection's first account
  // (metadata `accountId`) unless the caller names another
  // (https://help.getharvest.com/api-v2/introduction/overview/general/).
  api: { baseUrl: "https://id.getharvest.com", connectionBaseUrl: "https://api.harvestapp.com", headers: { "harvest-account-id": "{accountId}" } },
});
