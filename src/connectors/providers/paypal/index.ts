/**
 * PayPal (Log in with PayPal): OAuth 2.0 authorization code on paypal.com, HTTP Basic client
 * authentication at the token endpoint, space-separated OpenID scopes, refresh tokens. The identity is
 * the user info endpoint (`user_id`, with the `payer_id` kept). Connect only: PayPal's webhooks are
 * app-level but signed with PayPal's certificate (RSA over a CRC32-based string), which the shared
 * schemes do not express.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "paypal",
  displayName: "PayPal",
  category: "payments",
  description: "Identify the PayPal account of a person who logs in with PayPal.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#003087"/>' +
    '<circle cx="12" cy="12" r="6" fill="none" stroke="#fff" stroke-width="1.8"/><path d="M12 8.5v7M10 10.5h3a1.2 1.2 0 0 1 0 2.4h-2a1.2 1.2 0 0 0 0 2.4h3" fill="none" stroke="#fff" stroke-width="1.3" stroke-linecap="round"/></svg>',
  docs: [
    "https://developer.paypal.com/docs/log-in-with-paypal/integrate/",
    "https://developer.paypal.com/docs/api/identity/v1/",
    "https://developer.paypal.com/api/rest/webhooks/rest/",
  ],
  oauth: {
    authorizeUrl: "https://www.paypal.com/signin/authorize",
    tokenUrl: "https://api-m.paypal.com/v1/oauth2/token",
    scopes: ["openid", "email"],
    scopeDescriptions: {
      openid: "Confirm who you are on PayPal",
      email: "See your PayPal email address",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_basic",
    extraAuthorizeParams: { flowEntry: "static" },
    refresh: true,
  },
  identity: {
    path: "/v1/identity/oauth2/userinfo?schema=paypalv1.1",
    idPath: "user_id",
    displayNamePath: "name",
    metadata: { payerId: "payer_id" },
  },
  api: { baseUrl: "https://api-m.paypal.com" },
});
