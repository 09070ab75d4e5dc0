/**
 * Salesforce: the OAuth 2.0 web server flow against login.salesforce.com (sandboxes override the
 * URLs with test.salesforce.com). Connect only: Salesforce has no HMAC-signed webhooks (Outbound
 * Messages are SOAP, Platform Events need a streaming client).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "salesforce",
  displayName: "Salesforce",
  category: "crm",
  description: "Connect Salesforce users to work with their org's records through the REST API.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0d9dda"/>' +
    '<path d="M7 16.5a3.5 3.5 0 0 1-.4-7 4.5 4.5 0 0 1 8.4-1.2A3.7 3.7 0 1 1 17.5 16.5z" fill="#fff"/></svg>',
  docs: [
    "https://developer.salesforce.com/docs/platform/mobile-sdk/guide/oauth-revoking-tokens.html",
    "https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_web_server_flow.htm&type=5",
    "https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_tokens_scopes.htm&type=5",
    "https://help.salesforce.com/s/articleView?id=sf.remoteaccess_using_userinfo_endpoint.htm&type=5",
  ],
  oauth: {
    authorizeUrl: "https://login.salesforce.com/services/oauth2/authorize",
    tokenUrl: "https://login.salesforce.com/services/oauth2/token",
    apiUrl: "https://login.salesforce.com",
    scopes: ["api", "refresh_token", "openid"],
    scopeDescriptions: {
      api: "Access your Salesforce data through the REST API",
      refresh_token: "Keep this access while you are away (until you revoke it)",
      openid: "Confirm your Salesforce identity",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_post",
    refresh: true,
    // POST /services/oauth2/revoke, the token as the form field `token`, no client authentication; a
    // refresh token revokes the access tokens issued with it too (HTTP 200, else 400 invalid_token).
    revocation: { url: "https://login.salesforce.com/services/oauth2/revoke", method: "POST", tokenParam: "token", body: "form", clientAuth: "none", token: "refresh" },
  },
  // The token answer's instance_url is where the org's REST API lives; userinfo answers on login.
  identity: {
    path: "/services/oauth2/userinfo",
    idPath: "user_id",
    displayNamePath: "name",
    metadata: { organizationId: "organization_id", email: "email", profile: "profile", restUrl: "urls.rest" },
  },
  // The org's REST API is on its own instance, not login.salesforce.com: the token answer's
  // instance_url, whose origin userinfo's urls.rest also gives
  // (help.salesforce.com … remoteaccess_using_userinfo_endpoint): kept as metadata restUrl.
  api: { baseUrl: "{instanceUrl}", placeholders: { instanceUrl: "restUrl" } },
});
