/**
 * Acuity Scheduling: OAuth 2.0 authorization code with the single scope `api-v1`; access tokens do
 * not expire. The identity is `GET /api/v1/me`. Connect only: Acuity webhooks are registered per account
 * through the API (per-account) and signed with that account's API key.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "acuity_scheduling",
  displayName: "Acuity Scheduling",
  category: "scheduling",
  description: "Read the appointments, calendars and clients of an Acuity Scheduling account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#315b7d"/>' +
    '<circle cx="12" cy="12" r="6" fill="none" stroke="#fff" stroke-width="1.8"/><path d="M12 8.5V12l2.5 2" fill="none" stroke="#fff" stroke-width="1.8" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.acuityscheduling.com/docs/oauth2",
    "https://developers.acuityscheduling.com/reference/me",
    "https://developers.acuityscheduling.com/docs/webhooks",
  ],
  oauth: {
    authorizeUrl: "https://acuityscheduling.com/oauth2/authorize",
    tokenUrl: "https://acuityscheduling.com/oauth2/token",
    scopes: ["api-v1"],
    scopeDescriptions: {
      "api-v1": "Read and change your appointments, calendars and clients",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/api/v1/me",
    idPath: "id",
    displayNamePath: "email",
    metadata: { name: "name", timezone: "timezone" },
  },
  api: { baseUrl: "https://acuityscheduling.com" },
});
