/**
 * Docusign eSignature: OAuth 2.0 authorization code grant (HTTP Basic at the token endpoint,
 * 8-hour access tokens with refresh tokens; account-d.docusign.com for developer accounts via the
 * URL overrides). Connect (webhooks) with HMAC signs `X-DocuSign-Signature-1` = base64
 * HMAC-SHA256 of the body; JSON (SIM) messages name the eSignature account in `data.accountId`,
 * which is the account's id here (the first account userinfo lists).
 */
import { declareConnector } from "../../declaration.ts";

const accountId = "f9bdd1b5-7d1a-4c2e-9a3b-1f2e3d4c5b6a";
const userId = "0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d";
const envelopeId = "93be49ab-1a2b-4c5d-8e9f-0a1b2c3d4e5f";
const message = (event: string, generated: string, status: string, extra: Record<string, unknown> = {}) => ({
  event,
  apiVersion: "v2.1",
  uri: `/restapi/v2.1/accounts/${accountId}/envelopes/${envelopeId}`,
  retryCount: 0,
  configurationId: 10418234,
  generatedDateTime: generated,
  data: {
    accountId,
    userId,
    envelopeId,
    envelopeSummary: {
      status,
      emailSubject: "Please sign: Master Services Agreement",
      envelopeId,
      sender: { userName: "Alice Example", userId, accountId, email: "alice@example.com" },
      createdDateTime: "2026-01-01T10:00:00.0000000Z",
      sentDateTime: "2026-01-01T10:00:05.0000000Z",
      statusChangedDateTime: generated,
      ...extra,
    },
  },
});

export default declareConnector({
  name: "docusign",
  displayName: "Docusign",
  category: "docs",
  description: "Envelopes sent, completed, declined and voided in a Docusign eSignature account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#4c00ff"/>' +
    '<path d="M7 4.5h7l3.5 3.5v11.5H7z" fill="#fff"/><path d="M9 15.5c1.2-1.6 2-1.6 2.4 0s1.2 1.4 2.1.3 1.3-.9 1.8 0" stroke="#4c00ff" stroke-width="1.2" fill="none" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.docusign.com/platform/auth/authcode/authcode-get-token/",
    "https://developers.docusign.com/platform/auth/reference/user-info/",
    "https://developers.docusign.com/platform/webhooks/connect/hmac/",
    "https://developers.docusign.com/platform/webhooks/connect/validate/",
    "https://developers.docusign.com/platform/webhooks/connect/json-sim-event-model/",
  ],
  oauth: {
    authorizeUrl: "https://account.docusign.com/oauth/auth",
    tokenUrl: "https://account.docusign.com/oauth/token",
    scopes: ["signature", "extended"],
    scopeDescriptions: {
      signature: "Read and send envelopes in your Docusign account",
      extended: "Keep this access while you are away (until you revoke it)",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  identity: {
    path: "/oauth/userinfo",
    idPath: "accounts[].account_id",
    displayNamePath: "accounts[].account_name",
    metadata: { userId: "sub", name: "name", email: "email", baseUri: "accounts[].base_uri" },
  },
  // userinfo answers on the account server; the eSignature REST API (and so the proxy) is under the
  // account's `base_uri` from its answer, plus `/restapi`: the official SDK's basePath (docusign-esign
  // `ApiClient.setBasePath(base_uri + "/restapi")`; https://developers.docusign.com/platform/auth/reference/user-info/).
  api: { baseUrl: "https://account.docusign.com", connectionBaseUrl: "{baseUri}/restapi" },
  webhook: {
    // With several HMAC keys Docusign adds -2, -3…; the configured key must be the first one.
    scheme: { type: "hmac", header: "x-docusign-signature-1", algorithm: "sha256", encoding: "base64" },
    event: { path: "event" },
    routing: ["data.accountId"],
    occurredAt: ["generatedDateTime"],
  },
  triggers: [
    {
      name: "envelope_sent",
      displayName: "Envelope sent",
      description: "An envelope was sent to its recipients.",
      providerEvent: "envelope-sent",
      samplePayload: message("envelope-sent", "2026-01-01T10:00:06.1234567Z", "sent"),
    },
    {
      name: "envelope_completed",
      displayName: "Envelope completed",
      description: "Every recipient signed: the envelope is complete.",
      providerEvent: "envelope-completed",
      samplePayload: message("envelope-completed", "2026-01-02T15:30:00.1234567Z", "completed", { completedDateTime: "2026-01-02T15:30:00.0000000Z" }),
    },
    {
      name: "envelope_declined",
      displayName: "Envelope declined",
      description: "A recipient declined to sign.",
      providerEvent: "envelope-declined",
      samplePayload: message("envelope-declined", "2026-01-02T12:00:00.1234567Z", "declined", { declinedDateTime: "2026-01-02T12:00:00.0000000Z" }),
    },
    {
      name: "envelope_voided",
      displayName: "Envelope voided",
      description: "The sender voided the envelope.",
      providerEvent: "envelope-voided",
      samplePayload: message("envelope-voided", "2026-01-03T09:00:00.1234567Z", "voided", { voidedDateTime: "2026-01-03T09:00:00.0000000Z", voidedReason: "Wrong version attached" }),
    },
    {
      name: "recipient_completed",
      displayName: "Recipient signed",
      description: "One recipient finished signing.",
      providerEvent: "recipient-completed",
      samplePayload: message("recipient-completed", "2026-01-02T15:29:00.1234567Z", "sent", {
        recipientId: "1",
        recipientEmail: "bob@example.com",
        recipientName: "Bob Signer",
        recipientStatus: "completed",
      }),
    },
  ],
});
