/**
 * Dropbox Sign (formerly HelloSign): OAuth 2.0 authorization code (scopes are set on the API app);
 * access tokens last an hour and come with refresh tokens. The identity is `GET /v3/account`.
 * Connect only: its app callbacks are app-level, but each event is a multipart form whose `json` field
 * carries an `event_hash` (HMAC-SHA256 of event_time + event_type keyed with the app owner's API key),
 * which the shared schemes do not express.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "dropbox_sign",
  displayName: "Dropbox Sign",
  category: "docs",
  description: "Read and send signature requests of a Dropbox Sign account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0061fe"/>' +
    '<path d="M6 18l1-4 8-8 3 3-8 8zM6 18h12" fill="none" stroke="#fff" stroke-width="1.7" stroke-linejoin="round" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.hellosign.com/docs/o-auth/walkthrough/",
    "https://developers.hellosign.com/api/reference/operation/accountGet/",
    "https://developers.hellosign.com/docs/events/walkthrough/",
  ],
  oauth: {
    authorizeUrl: "https://app.hellosign.com/oauth/authorize",
    tokenUrl: "https://app.hellosign.com/oauth/token",
    apiUrl: "https://api.hellosign.com",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/v3/account",
    idPath: "account.account_id",
    displayNamePath: "account.email_address",
  },
});
