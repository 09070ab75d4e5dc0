/**
 * Constant Contact (API v3): OAuth 2.0 authorization code flow on Constant Contact's Okta-hosted
 * authorization server, HTTP Basic client authentication, space-separated scopes, `offline_access` for
 * a refresh token (access tokens last a day). The identity is the account summary
 * (`encoded_account_id`). Connect only: Constant Contact's webhooks cover billing events for partners only.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "constant_contact",
  displayName: "Constant Contact",
  category: "marketing",
  description: "Read the contacts, lists and campaigns of a Constant Contact account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1856ed"/>' +
    '<path d="M5 8h14v9H5z" fill="none" stroke="#fff" stroke-width="1.8"/><path d="M5 8l7 5 7-5" fill="none" stroke="#fff" stroke-width="1.8" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developer.constantcontact.com/api_guide/server_flow.html",
    "https://developer.constantcontact.com/api_guide/scopes.html",
    "https://developer.constantcontact.com/api_reference/index.html#!/Account_Services/getAccountDetails",
  ],
  oauth: {
    authorizeUrl: "https://authz.constantcontact.com/oauth2/default/v1/authorize",
    tokenUrl: "https://authz.constantcontact.com/oauth2/default/v1/token",
    scopes: ["account_read", "contact_data", "offline_access"],
    scopeDescriptions: {
      account_read: "Read your Constant Contact account details",
      contact_data: "Read and change your contacts and lists",
      offline_access: "Keep this access while you are away (until you revoke it)",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  identity: {
    path: "/v3/account/summary",
    idPath: "encoded_account_id",
    displayNamePath: "organization_name",
    metadata: { email: "contact_email" },
  },
  api: { baseUrl: "https://api.cc.email" },
});
