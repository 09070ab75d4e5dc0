/**
 * PandaDoc: OAuth 2.0 authorization code with the single scope `read+write`; access tokens come with
 * refresh tokens. The identity is the authorizing member (`GET /public/v1/members/current/`), whose
 * workspace is kept as metadata. No webhook section: PandaDoc webhooks are created per workspace (in its
 * settings or through the API) and sign with a per-webhook key passed as a query parameter.
 * Polled: documents are read on a schedule from List Documents, newest change first (`modified_from`
 * the newest seen).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "pandadoc",
  displayName: "PandaDoc",
  category: "docs",
  description: "Read and send the documents and templates of a PandaDoc workspace.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#248567"/>' +
    '<path d="M8 5h6l3 3v11H8z" fill="none" stroke="#fff" stroke-width="1.8" stroke-linejoin="round"/><path d="M10 12h5M10 15h5" stroke="#fff" stroke-width="1.5" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.pandadoc.com/docs/oauth-20-authentication",
    "https://developers.pandadoc.com/reference/get-current-member",
    "https://developers.pandadoc.com/reference/about-webhooks",
    "https://developers.pandadoc.com/reference/list-documents",
    "https://developers.pandadoc.com/changelog/additional-filtering-options-in-list-documents",
  ],
  oauth: {
    authorizeUrl: "https://app.pandadoc.com/oauth2/authorize",
    tokenUrl: "https://api.pandadoc.com/oauth2/access_token",
    scopes: ["read+write"],
    scopeDescriptions: {
      "read+write": "Read, create and send your PandaDoc documents",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/public/v1/members/current/",
    idPath: "user_id",
    displayNamePath: "email",
    metadata: { workspaceId: "workspace_id", workspaceName: "workspace_name", membershipId: "membership_id" },
  },
  api: { baseUrl: "https://api.pandadoc.com" },
  triggers: [
    {
      name: "document_updated",
      displayName: "Document created or updated",
      description: "A document was created or changed (sent, viewed, completed, declined…), read from the document list on a schedule.",
      providerEvent: "GET /public/v1/documents",
      // One document as the list answers it.
      samplePayload: {
        id: "msFYActMfJHqNTKH8YSvF1",
        name: "Sample Document",
        status: "document.completed",
        date_created: "2026-01-01T09:00:00.000000Z",
        date_modified: "2026-01-01T10:00:00.000000Z",
        date_completed: "2026-01-01T10:00:00.000000Z",
        expiration_date: null,
        version: "2",
      },
    },
  ],
  polling: {
    triggers: {
      // Modified at or after `modified_from`, newest change first (`-date_modified`).
      document_updated: {
        request: {
          path: "/public/v1/documents",
          query: { count: "100", order_by: "-date_modified", modified_from: "{cursor}" },
        },
        items: "results",
        id: "id",
        version: "date_modified",
        occurredAt: ["date_modified"],
        cursor: { from: "version" },
      },
    },
  },
});
