/**
 * Salesloft: OAuth 2.0 authorization code (scopes are set on the app), access tokens with refresh
 * tokens. The identity is the authorizing user (`GET /v2/me`). Connect only: Salesloft webhook
 * subscriptions are created per team through the API with its token (per-account).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "salesloft",
  displayName: "Salesloft",
  category: "crm",
  description: "Read the people, cadences and activities of a Salesloft team.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0c6a48"/>' +
    '<circle cx="9" cy="10" r="2.3" fill="none" stroke="#fff" stroke-width="1.6"/><circle cx="15.5" cy="10" r="2.3" fill="none" stroke="#fff" stroke-width="1.6"/><path d="M5 17c.8-2.2 2.2-3.2 4-3.2s3.2 1 4 3.2M12.5 15c.7-.9 1.7-1.2 3-1.2 1.8 0 3.2 1 3.8 3.2" fill="none" stroke="#fff" stroke-width="1.6" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.salesloft.com/docs/platform/api-basics/oauth-authentication/",
    "https://developers.salesloft.com/docs/api/me-find/",
    "https://developers.salesloft.com/docs/platform/webhooks/",
  ],
  oauth: {
    authorizeUrl: "https://accounts.salesloft.com/oauth/authorize",
    tokenUrl: "https://accounts.salesloft.com/oauth/token",
    apiUrl: "https://api.salesloft.com",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/v2/me",
    idPath: "data.id",
    displayNamePath: "data.name",
    metadata: { email: "data.email", guid: "data.guid" },
  },
});
