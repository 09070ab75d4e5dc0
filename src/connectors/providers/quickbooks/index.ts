/**
 * QuickBooks Online: Intuit's OAuth 2.0 with HTTP Basic client authentication and rotating
 * refresh tokens; the identity comes from Intuit's OpenID Connect userinfo endpoint. Connect only:
 * Intuit webhooks identify companies (realmId, sent to the redirect URI, not in the token answer),
 * not the user who connected.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "quickbooks",
  displayName: "QuickBooks Online",
  category: "accounting",
  description: "Connect QuickBooks Online companies to work with their accounting data.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#2ca01c"/>' +
    '<circle cx="12" cy="12" r="7" fill="none" stroke="#fff" stroke-width="1.8"/>' +
    '<path d="M10 8.5v7M10 8.5h1.5a2 2 0 0 1 0 4H10M14 15.5v-7M14 15.5h-1.5" stroke="#fff" stroke-width="1.5" fill="none"/></svg>',
  docs: [
    "https://developer.intuit.com/app/developer/qbo/docs/develop/authentication-and-authorization/oauth-2.0",
    "https://developer.intuit.com/app/developer/qbo/docs/develop/authentication-and-authorization/openid-connect",
  ],
  oauth: {
    authorizeUrl: "https://appcenter.intuit.com/connect/oauth2",
    tokenUrl: "https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer",
    scopes: ["com.intuit.quickbooks.accounting", "openid", "profile", "email"],
    scopeDescriptions: {
      "com.intuit.quickbooks.accounting": "Work with your QuickBooks company's accounting data",
      openid: "Confirm your Intuit identity",
      profile: "Read your name",
      email: "Read your email address",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_basic",
    refresh: true,
    // developer.intuit.com … oauth-2.0 ("Revoke access tokens"): when a user disconnects, POST the
    // refresh token as `token` in a JSON body with HTTP Basic client authentication; 200, else 400.
    revocation: { url: "https://developer.api.intuit.com/v2/oauth2/tokens/revoke", method: "POST", tokenParam: "token", body: "json", clientAuth: "client_secret_basic", token: "refresh" },
  },
  identity: {
    path: "/v1/openid_connect/userinfo",
    idPath: "sub",
    displayNamePath: "givenName",
    metadata: { email: "email" },
  },
  // The identity lives on Intuit's accounts host; the accounting API (and so the proxy) on its own,
  // paths `/v3/company/{realmId}/…` (https://developer.intuit.com/app/developer/qbo/docs/develop/explore-the-quickbooks-online-api).
  api: { baseUrl: "https://accounts.platform.intuit.com", connectionBaseUrl: "https://quickbooks.api.intuit.com" },
});
