/**
 * Airtable: OAuth 2.0 where PKCE is mandatory and confidential clients authenticate with HTTP
 * Basic. Connect only: Airtable webhooks are notification-only (a MAC over "something changed",
 * keyed with a secret Airtable returns per webhook).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "airtable",
  displayName: "Airtable",
  category: "docs",
  description: "Read the bases, tables and records an Airtable user grants access to.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#18bfff"/>' +
    '<path d="M12 4.5 19 7.5 12 10.5 5 7.5z" fill="#fff"/><path d="M5 9.5v7l6 2.5v-7zM19 9.5v7l-6 2.5v-7z" fill="#fff" opacity=".8"/></svg>',
  docs: [
    "https://airtable.com/developers/web/api/oauth-reference",
    "https://airtable.com/developers/web/api/scopes",
    "https://airtable.com/developers/web/api/get-user-id-scopes",
  ],
  oauth: {
    authorizeUrl: "https://airtable.com/oauth2/v1/authorize",
    tokenUrl: "https://airtable.com/oauth2/v1/token",
    apiUrl: "https://api.airtable.com/v0",
    scopes: ["user.email:read", "data.records:read", "schema.bases:read"],
    scopeDescriptions: {
      "user.email:read": "See your email address",
      "data.records:read": "See the records in the bases you choose",
      "schema.bases:read": "See the structure of the bases you choose",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  identity: {
    path: "/meta/whoami",
    idPath: "id",
    displayNamePath: "email",
    metadata: { email: "email", scopes: "scopes" },
  },
});
