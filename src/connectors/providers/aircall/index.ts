/**
 * Aircall technology partners: OAuth 2.0 authorization code with the single scope `public_api`;
 * access tokens do not expire. The identity is the integration the token belongs to
 * (`GET /v1/integrations/me`), which names the company. Connect only: Aircall webhooks are created per
 * company through the API with its token (per-account), each with its own `token` in the payload.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "aircall",
  displayName: "Aircall",
  category: "other",
  description: "Read the calls, numbers, users and contacts of an Aircall company.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#00b388"/>' +
    '<path d="M8 5l2.5 3-1.7 2a9 9 0 0 0 5.2 5.2l2-1.7 3 2.5-1.5 2.5C12 18.5 5.5 12 5.5 6.5z" fill="none" stroke="#fff" stroke-width="1.6" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developer.aircall.io/tutorials/how-aircall-oauth-flow-works/",
    "https://developer.aircall.io/api-references/#retrieve-integration-information",
    "https://developer.aircall.io/api-references/#webhooks",
  ],
  oauth: {
    authorizeUrl: "https://dashboard.aircall.io/oauth/authorize",
    tokenUrl: "https://api.aircall.io/v1/oauth/token",
    apiUrl: "https://api.aircall.io",
    scopes: ["public_api"],
    scopeDescriptions: {
      public_api: "Read and change your Aircall calls, numbers, users and contacts",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/v1/integrations/me",
    idPath: "integration.company_id",
    displayNamePath: "integration.name",
    metadata: { status: "integration.status" },
  },
});
