/**
 * Xero: OAuth 2.0 (PKCE supported, HTTP Basic client authentication, 30-minute access tokens with
 * rotating refresh tokens). Connect only: a Xero webhook delivery batches events of several
 * organisations in one `events` array, which the shared pipeline (one delivery, one event) does
 * not split yet.
 */
import { declareConnector } from "../../declaration.ts";
import { asRecord, asString } from "../../json.ts";

export default declareConnector({
  name: "xero",
  displayName: "Xero",
  category: "accounting",
  description: "Read the invoices and contacts of the Xero organisations a user connects.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#13b5ea"/><circle cx="12" cy="12" r="7.5" fill="#fff"/>' +
    '<path d="M9 9l6 6M15 9l-6 6" stroke="#13b5ea" stroke-width="1.8" stroke-linecap="round"/></svg>',
  docs: [
    "https://developer.xero.com/documentation/guides/oauth2/auth-flow",
    "https://developer.xero.com/documentation/guides/oauth2/scopes",
    "https://developer.xero.com/documentation/guides/oauth2/tenants",
  ],
  oauth: {
    authorizeUrl: "https://login.xero.com/identity/connect/authorize",
    tokenUrl: "https://identity.xero.com/connect/token",
    apiUrl: "https://api.xero.com",
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
});
