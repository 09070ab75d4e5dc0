/**
 * Xero: OAuth 2.0 (PKCE supported, HTTP Basic client authentication, 30-minute access tokens with
 * rotating refresh tokens). Webhooks are the app's: the operator sets the delivery URL once in the
 * app's Webhooks tab and stores the webhook key Xero shows there as the connector's webhook secret.
 * A delivery batches events of every connected organisation in `events` (each forwarded as one
 * event, routed by `tenantId` to the connection holding that organisation), signed `x-xero-signature` = base64 HMAC-SHA256 of the raw body with
 * that key. Xero's "intent to receive" check POSTs empty batches, some wrongly signed, and wants a
 * bare 200 or 401 (`emptyAnswers`). Events carry no id: one is known by its tenant, category, type,
 * resource and time together.
 */
import { declareConnector } from "../../declaration.ts";
import { asRecord, asString } from "../../json.ts";

/** One event of a delivery's `events` array, as the webhooks overview lists its fields. */
const event = (category: string, type: string) => ({
  resourceUrl: `https://api.xero.com/api.xro/2.0/${category === "INVOICE" ? "Invoices" : "Contacts"}/717f2bfc-c6d4-41fd-b238-3f2f0c0cf777`,
  resourceId: "717f2bfc-c6d4-41fd-b238-3f2f0c0cf777",
  eventDateUtc: "2026-01-01T10:00:00.000",
  eventType: type,
  eventCategory: category,
  tenantId: "c2cc9b6e-9458-4c7d-93cc-f02b81b0594f",
  tenantType: "ORGANISATION",
});
const trigger = (category: string, type: string, name: string, displayName: string, description: string) => ({
  name,
  displayName,
  description,
  providerEvent: `${category}.${type}`,
  samplePayload: event(category, type),
});

export default declareConnector({
  name: "xero",
  displayName: "Xero",
  category: "accounting",
  description: "Read the invoices and contacts of the Xero organisations a user connects, and hear when they are created or updated.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#13b5ea"/><circle cx="12" cy="12" r="7.5" fill="#fff"/>' +
    '<path d="M9 9l6 6M15 9l-6 6" stroke="#13b5ea" stroke-width="1.8" stroke-linecap="round"/></svg>',
  docs: [
    "https://developer.xero.com/documentation/guides/oauth2/auth-flow",
    "https://developer.xero.com/documentation/guides/oauth2/scopes",
    "https://developer.xero.com/documentation/guides/oauth2/tenants",
    "https://developer.xero.com/documentation/guides/webhooks/overview",
    "https://developer.xero.com/documentation/guides/webhooks/configuring-your-server",
  ],
  oauth: {
    authorizeUrl: "https://login.xero.com/identity/connect/authorize",
    tokenUrl: "https://identity.xero.com/connect/token",
    scopes: ["openid", "profile", "email", "offline_access", "accounting.transactions.read", "accounting.contacts.read"],
    scopeDescriptions: {
      openid: "Confirm your Xero identity",
      profile: "Read your name",
      email: "Read your email address",
      offline_access: "Keep this access while you are away (until you revoke it)",
      "accounting.transactions.read": "Read invoices, bills and other transactions",
      "accounting.contacts.read": "Read contacts",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_basic",
    refresh: true,
    // developer.xero.com/documentation/guides/oauth2/auth-flow ("Revoking tokens"): the refresh token
    // as the form field `token`, HTTP Basic with the client; removes all the user's connections to the
    // app; 200 with an empty body.
    revocation: { url: "https://identity.xero.com/connect/revocation", method: "POST", tokenParam: "token", body: "form", clientAuth: "client_secret_basic", token: "refresh" },
  },
  // Code: GET /connections answers an array (one entry per organisation the user picked); the first
  // tenant is the account's id, all of them are kept for the operator's API calls (xero-tenant-id).
  identity: {
    async read({ fetchJson }) {
      const answer: unknown = await fetchJson("/connections");
      const tenants = (Array.isArray(answer) ? answer : []).map((t) => asRecord(t) ?? {});
      const first = tenants[0];
      const tenantId = first && asString(first.tenantId);
      if (!tenantId) throw new Error("Xero /connections answered without a tenant");
      return {
        externalId: tenantId,
        displayName: asString(first.tenantName),
        metadata: {
          tenants: tenants.map((t) => ({ tenantId: asString(t.tenantId) ?? null, tenantName: asString(t.tenantName) ?? null, tenantType: asString(t.tenantType) ?? null })),
        },
      };
    },
  },
  api: { baseUrl: "https://api.xero.com" },
  webhook: {
    scheme: { type: "hmac", header: "x-xero-signature", algorithm: "sha256", encoding: "base64" },
    emptyAnswers: true,
    batch: { path: "events" },
    event: { path: "eventCategory", actionPath: "eventType" },
    routing: ["tenantId"],
    // A connection may hold several organisations: each one's events are the connection's.
    routingMetadata: "tenants[].tenantId",
    deliveryId: { paths: ["tenantId", "eventCategory", "eventType", "resourceId", "eventDateUtc"] },
    occurredAt: ["eventDateUtc"],
    // No timestamp is signed: the same body again within Xero's 24-hour retry window is a replay.
    replayWindowSeconds: 24 * 3600,
  },
  triggers: [
    trigger("INVOICE", "CREATE", "invoice_created", "Invoice created", "A new invoice was created in a connected organisation: `resourceId` is its InvoiceID, `resourceUrl` where to read it."),
    trigger("INVOICE", "UPDATE", "invoice_updated", "Invoice updated", "An invoice was updated (archiving included)."),
    trigger("CONTACT", "CREATE", "contact_created", "Contact created", "A new contact was created in a connected organisation: `resourceId` is its ContactID, `resourceUrl` where to read it."),
    trigger("CONTACT", "UPDATE", "contact_updated", "Contact updated", "A contact was updated (archiving included)."),
  ],
});
