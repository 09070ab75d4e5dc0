/**
 * Attio: OAuth 2.0 authorization code; the app's scopes are chosen in Attio's developer dashboard,
 * not on the authorize URL. Access tokens do not expire. `GET /v2/self` introspects the token and names
 * the workspace that granted it. Connect only: Attio webhooks are created per workspace through the API
 * with the workspace's token (a per-account subscription), and each delivery batches an `events` array.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "attio",
  displayName: "Attio",
  category: "crm",
  description: "Read the records, lists and notes of an Attio workspace.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1a1d21"/>' +
    '<path d="M6 6h5v5H6zM13 6h5v5h-5zM6 13h5v5H6zM13 13h5v5h-5z" fill="none" stroke="#fff" stroke-width="1.6"/></svg>',
  docs: [
    "https://docs.attio.com/rest-api/tutorials/connect-an-app-through-oauth",
    "https://docs.attio.com/rest-api/endpoint-reference/meta/identify",
    "https://docs.attio.com/rest-api/guides/webhooks",
  ],
  oauth: {
    authorizeUrl: "https://app.attio.com/authorize",
    tokenUrl: "https://app.attio.com/oauth/token",
    apiUrl: "https://api.attio.com",
    // Scopes are set on the app in Attio's developer dashboard.
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    // Attio access tokens do not expire and no refresh token is issued.
    refresh: false,
  },
  identity: {
    path: "/v2/self",
    idPath: "workspace_id",
    displayNamePath: "workspace_name",
    metadata: { workspaceSlug: "workspace_slug", memberId: "authorized_by_workspace_member_id" },
  },
});
