/**
 * Dropbox Sign (formerly HelloSign): OAuth 2.0 authorization code (scopes are set on the API app);
 * access tokens last an hour and come with refresh tokens. The identity is `GET /v3/account`.
 * No webhook section: its app callbacks are app-level, but each event is a multipart form whose `json` field
 * carries an `event_hash` (HMAC-SHA256 of event_time + event_type keyed with the app owner's API key),
 * which the shared schemes do not express.
 * Polled: signature requests the user sent or received are read on a schedule from List Signature
 * Requests (the first page, newest first as observed).
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
    "https://developers.hellosign.com/api/reference/operation/signatureRequestList/",
    "https://developers.hellosign.com/docs/request-signatures/search/",
  ],
  oauth: {
    authorizeUrl: "https://app.hellosign.com/oauth/authorize",
    tokenUrl: "https://app.hellosign.com/oauth/token",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/account",
    idPath: "account.account_id",
    displayNamePath: "account.email_address",
  },
  // With the version, the official SDK's base (@dropbox/sign `defaultBasePath`).
  api: { baseUrl: "https://api.hellosign.com/v3" },
  triggers: [
    {
      name: "signature_request_created",
      displayName: "Signature request sent or received",
      description: "A signature request was sent by the user or to them (read from their signature request list on a schedule).",
      providerEvent: "GET /signature_request/list",
      // One SignatureRequest as the list answers it.
      samplePayload: {
        signature_request_id: "fa5c8a0b0f492d768749333ad6fcc214c111e967",
        title: "NDA with Acme Co.",
        subject: "The NDA we talked about",
        message: "Please sign this NDA and then we can discuss more.",
        is_complete: false,
        is_declined: false,
        has_error: false,
        created_at: 1767261600,
        requester_email_address: "me@dropboxsign.com",
        signing_url: "https://app.hellosign.com/sign/fa5c8a0b0f492d768749333ad6fcc214c111e967",
        details_url: "https://app.hellosign.com/home/manage?guid=fa5c8a0b0f492d768749333ad6fcc214c111e967",
        signatures: [{ signature_id: "78caf2a1d01cd39cea2bc1cbb340dac3", signer_email_address: "jack@example.com", signer_name: "Jack", status_code: "awaiting_signature" }],
      },
    },
  ],
  polling: {
    triggers: {
      // No "since" filter on the list: the first page is read; `created_at` is a Unix time in seconds.
      signature_request_created: {
        request: { path: "/signature_request/list", query: { page_size: "100" } },
        items: "signature_requests",
        id: "signature_request_id",
        version: "created_at",
        occurredAt: ["created_at"],
        cursor: { from: "version" },
      },
    },
  },
});
