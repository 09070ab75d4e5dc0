/**
 * Mailchimp Marketing: OAuth 2.0 authorization code, no scopes; access tokens do not expire (no
 * refresh token). The account's data centre (`dc`) and API endpoint come from the metadata endpoint,
 * which is also the identity (`user_id`). Connect only: Mailchimp webhooks are created per audience
 * through the API with the account's token (per-account) and are not signed.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "mailchimp",
  displayName: "Mailchimp",
  category: "marketing",
  description: "Read the audiences, campaigns and reports of a Mailchimp account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#241c15"/>' +
    '<path d="M5 8h14v9H5z" fill="none" stroke="#fff" stroke-width="1.8"/><path d="M5 8l7 5 7-5" fill="none" stroke="#fff" stroke-width="1.8" stroke-linejoin="round"/></svg>',
  docs: [
    "https://mailchimp.com/developer/marketing/guides/access-user-data-oauth-2/",
    "https://mailchimp.com/developer/marketing/guides/sync-audience-data-webhooks/",
  ],
  oauth: {
    authorizeUrl: "https://login.mailchimp.com/oauth2/authorize",
    tokenUrl: "https://login.mailchimp.com/oauth2/token",
    apiUrl: "https://login.mailchimp.com",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/oauth2/metadata",
    idPath: "user_id",
    displayNamePath: "accountname",
    metadata: { dc: "dc", apiEndpoint: "api_endpoint", email: "login.email" },
  },
});
