/**
 * RingCentral: OAuth 2.0 authorization code (the app's permissions are set in the developer
 * console, not requested), HTTP Basic client authentication, PKCE supported; one-hour access tokens and
 * week-long refresh tokens. The identity is the authorizing extension (`GET
 * /restapi/v1.0/account/~/extension/~`). No webhook section: RingCentral push notifications are subscriptions
 * each account's token creates (per-account).
 * Polled: the user's calls are read on a schedule from their call log (`dateFrom` the newest start
 * seen; the app needs the Read Call Log permission).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "ringcentral",
  displayName: "RingCentral",
  category: "other",
  description: "Read the call log, messages and extensions of a RingCentral account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#ff7a00"/>' +
    '<path d="M8 5l2.5 3-1.7 2a9 9 0 0 0 5.2 5.2l2-1.7 3 2.5-1.5 2.5C12 18.5 5.5 12 5.5 6.5z" fill="none" stroke="#fff" stroke-width="1.6" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developers.ringcentral.com/guide/authentication/auth-code-flow",
    "https://developers.ringcentral.com/api-reference/Extensions/readExtension",
    "https://developers.ringcentral.com/guide/notifications/webhooks/creating-webhooks",
    "https://developers.ringcentral.com/api-reference/Call-Log/readUserCallLog",
    "https://developers.ringcentral.com/guide/voice/call-log/api",
    "https://developers.ringcentral.com/guide/basics/rate-limits",
    "https://developers.ringcentral.com/guide/authentication/tokens",
  ],
  oauth: {
    authorizeUrl: "https://platform.ringcentral.com/restapi/oauth/authorize",
    tokenUrl: "https://platform.ringcentral.com/restapi/oauth/token",
    scopes: [],
    pkce: true,
    clientAuth: "client_secret_basic",
    refresh: true,
    // developers.ringcentral.com/guide/authentication/tokens: one token as the form field `token`,
    // HTTP Basic with the client, ends the whole authorization session (all its access and refresh
    // tokens); an error is to be ignored, not retried.
    revocation: { url: "https://platform.ringcentral.com/restapi/oauth/revoke", method: "POST", tokenParam: "token", body: "form", clientAuth: "client_secret_basic", token: "refresh" },
  },
  identity: {
    path: "/restapi/v1.0/account/~/extension/~",
    idPath: "id",
    displayNamePath: "name",
    metadata: { accountId: "account.id", extensionNumber: "extensionNumber" },
  },
  api: { baseUrl: "https://platform.ringcentral.com" },
  triggers: [
    {
      name: "call_logged",
      displayName: "Call logged",
      description: "A call to or from the user was recorded in their call log (read on a schedule).",
      providerEvent: "GET /restapi/v1.0/account/~/extension/~/call-log",
      // One call log record as the list answers it (simple view).
      samplePayload: {
        uri: "https://platform.ringcentral.com/restapi/v1.0/account/1477535004/extension/1477535004/call-log/Y3s7B7-Zr5pWzDA",
        id: "Y3s7B7-Zr5pWzDA",
        sessionId: "4503991004",
        telephonySessionId: "s-a0d7b5d8c9cb3z17f2c4a79d4z5z7b2a5",
        startTime: "2026-01-01T10:00:00.000Z",
        duration: 35,
        type: "Voice",
        direction: "Inbound",
        action: "Phone Call",
        result: "Accepted",
        to: { phoneNumber: "+18662019834", name: "Jane Smith" },
        from: { phoneNumber: "+16504445566", name: "John Doe", location: "San Mateo, CA" },
      },
    },
  ],
  polling: {
    triggers: {
      // Newest first; `dateFrom` limits it to calls started at or after the newest seen (default: the last day).
      call_logged: {
        request: {
          path: "/restapi/v1.0/account/~/extension/~/call-log",
          query: { view: "Simple", perPage: "100", dateFrom: "{cursor}" },
        },
        items: "records",
        id: "id",
        version: "startTime",
        occurredAt: ["startTime"],
        cursor: { from: "version" },
      },
    },
  },
});
