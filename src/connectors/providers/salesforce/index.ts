/**
 * Salesforce: the OAuth 2.0 web server flow against login.salesforce.com (sandboxes override the
 * URLs with test.salesforce.com).
 * Salesforce has no HMAC-signed webhooks (Outbound Messages are SOAP, Platform Events need a
 * streaming client), so accounts are polled with a SOQL query ordered by LastModifiedDate.
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
    "https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_query.htm",
    "https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_orderby.htm",
  ],
  oauth: {
    authorizeUrl: "https://login.salesforce.com/services/oauth2/authorize",
    tokenUrl: "https://login.salesforce.com/services/oauth2/token",
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
  api: { baseUrl: "https://login.salesforce.com", connectionBaseUrl: "{instanceUrl}", placeholders: { instanceUrl: "restUrl" } },
  triggers: [
    {
      name: "account_updated",
      displayName: "Account created or updated",
      description: "An account record was created or changed in the org (read with a SOQL query on a schedule).",
      providerEvent: "GET /services/data/v60.0/query (Account by LastModifiedDate)",
      // One record as the query answers it.
      samplePayload: {
        attributes: { type: "Account", url: "/services/data/v60.0/sobjects/Account/001D000000IRFmaIAH" },
        Id: "001D000000IRFmaIAH",
        Name: "Edge Communications",
        Type: "Customer - Direct",
        OwnerId: "005D0000001KyEIIA0",
        CreatedDate: "2026-01-01T09:00:00.000+0000",
        LastModifiedDate: "2026-01-01T10:00:00.000+0000",
      },
    },
  ],
  polling: {
    triggers: {
      // The 200 most recently modified accounts; only those modified after the newest one seen are new.
      account_updated: {
        request: {
          path: "/services/data/v60.0/query",
          query: { q: "SELECT Id, Name, Type, OwnerId, CreatedDate, LastModifiedDate FROM Account ORDER BY LastModifiedDate DESC LIMIT 200" },
        },
        items: "records",
        id: "Id",
        version: "LastModifiedDate",
        occurredAt: ["LastModifiedDate"],
        cursor: { from: "version" },
      },
    },
  },
});
