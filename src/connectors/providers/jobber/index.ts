/**
 * Jobber: OAuth 2.0 authorization code (scopes are chosen on the app), the GraphQL API for the
 * identity (`account { id name }`, with the required `X-JOBBER-GRAPHQL-VERSION` header). Webhooks
 * are configured once on the app and fire for every account that installed it; each POST is signed
 * `X-Jobber-Hmac-SHA256` = base64 HMAC-SHA256 of the raw body keyed with the app's OAuth client
 * secret, and names the account in `data.webHookEvent.accountId`. No delivery id: Jobber delivers
 * at least once, so a repeat is recognised by its body.
 */
import { declareConnector } from "../../declaration.ts";

const accountId = "Z2lkOi8vSm9iYmVyL0FjY291bnQvMTIzNDU2";
const hook = (topic: string, itemId: string, occurredAt: string) => ({
  data: { webHookEvent: { topic, appId: "7f3c2a1e-9b8d-4c6e-a5f4-3e2d1c0b9a87", accountId, itemId, occurredAt } },
});

export default declareConnector({
  name: "jobber",
  displayName: "Jobber",
  category: "other",
  description: "Clients, quotes, jobs and invoices of the Jobber accounts that installed your app.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1d3b4f"/>' +
    '<path d="M6 15.5 10 11l3 3 5-6" fill="none" stroke="#7dd37b" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developer.getjobber.com/docs/building_your_app/app_authorization/",
    "https://developer.getjobber.com/docs/using_jobbers_api/api_queries_and_mutations/",
    "https://developer.getjobber.com/docs/using_jobbers_api/setting_up_webhooks/",
    "https://developer.getjobber.com/docs/building_your_app/app_lifecycle",
  ],
  oauth: {
    authorizeUrl: "https://api.getjobber.com/api/oauth/authorize",
    tokenUrl: "https://api.getjobber.com/api/oauth/token",
    // The app's scopes are set in the Developer Center; the authorize URL carries none.
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    // Access tokens last an hour; refresh token rotation is required for published apps.
    refresh: true,
  },
  identity: {
    path: "/api/graphql",
    method: "POST",
    body: { query: "query { account { id name } }" },
    headers: { "content-type": "application/json", "x-jobber-graphql-version": "2025-01-20" },
    idPath: "data.account.id",
    displayNamePath: "data.account.name",
  },
  api: { baseUrl: "https://api.getjobber.com" },
  webhook: {
    scheme: { type: "hmac", header: "x-jobber-hmac-sha256", algorithm: "sha256", encoding: "base64" },
    event: { path: "data.webHookEvent.topic" },
    routing: ["data.webHookEvent.accountId"],
    occurredAt: ["data.webHookEvent.occurredAt"],
  },
  triggers: [
    {
      name: "client_created",
      displayName: "Client created",
      description: "A client was created.",
      providerEvent: "CLIENT_CREATE",
      samplePayload: hook("CLIENT_CREATE", "Z2lkOi8vSm9iYmVyL0NsaWVudC83ODkwMTI=", "2026-01-01T10:00:00-07:00"),
    },
    {
      name: "client_updated",
      displayName: "Client updated",
      description: "A client's details changed.",
      providerEvent: "CLIENT_UPDATE",
      samplePayload: hook("CLIENT_UPDATE", "Z2lkOi8vSm9iYmVyL0NsaWVudC83ODkwMTI=", "2026-01-02T09:30:00-07:00"),
    },
    {
      name: "quote_created",
      displayName: "Quote created",
      description: "A quote was created.",
      providerEvent: "QUOTE_CREATE",
      samplePayload: hook("QUOTE_CREATE", "Z2lkOi8vSm9iYmVyL1F1b3RlLzQ1Njc4", "2026-01-02T11:00:00-07:00"),
    },
    {
      name: "job_created",
      displayName: "Job created",
      description: "A job was created.",
      providerEvent: "JOB_CREATE",
      samplePayload: hook("JOB_CREATE", "Z2lkOi8vSm9iYmVyL0pvYi8yMzQ1Njc=", "2026-01-03T08:15:00-07:00"),
    },
    {
      name: "invoice_created",
      displayName: "Invoice created",
      description: "An invoice was created.",
      providerEvent: "INVOICE_CREATE",
      samplePayload: hook("INVOICE_CREATE", "Z2lkOi8vSm9iYmVyL0ludm9pY2UvMzQ1Njc4", "2026-01-05T16:40:00-07:00"),
    },
    {
      name: "app_disconnected",
      displayName: "App disconnected",
      description: "The account disconnected your app; its tokens no longer work.",
      providerEvent: "APP_DISCONNECT",
      samplePayload: hook("APP_DISCONNECT", accountId, "2026-01-31T12:00:00-07:00"),
    },
  ],
});
