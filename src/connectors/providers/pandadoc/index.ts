/**
 * PandaDoc: OAuth 2.0 authorization code with the single scope `read+write`; access tokens come with
 * refresh tokens. The identity is the authorizing member (`GET /public/v1/members/current/`), whose
 * workspace is kept as metadata. Connect only: PandaDoc webhooks are created per workspace (in its
 * settings or through the API) and sign with a per-webhook key passed as a query parameter.
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
  ],
  oauth: {
    authorizeUrl: "https://app.pandadoc.com/oauth2/authorize",
    tokenUrl: "https://api.pandadoc.com/oauth2/access_token",
    apiUrl: "https://api.pandadoc.com",
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
});
