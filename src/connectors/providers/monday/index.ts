/**
 * monday.com: OAuth 2.0 for monday apps (tokens do not expire; no refresh) and the GraphQL API for
 * the identity. Connect only: monday signs webhooks with a JWT in Authorization, not shared here yet.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "monday",
  displayName: "monday.com",
  category: "project_management",
  description: "Read the boards and items of a monday.com account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#181b34"/>' +
    '<path d="M5.5 16 9 9.5M10.5 16 14 9.5" stroke="#ff3d57" stroke-width="2.6" stroke-linecap="round"/>' +
    '<circle cx="17.5" cy="15.5" r="1.7" fill="#00ca72"/></svg>',
  docs: [
    "https://developer.monday.com/apps/docs/oauth",
    "https://developer.monday.com/api-reference/reference/me",
  ],
  oauth: {
    authorizeUrl: "https://auth.monday.com/oauth2/authorize",
    tokenUrl: "https://auth.monday.com/oauth2/token",
    apiUrl: "https://api.monday.com",
    scopes: ["me:read", "boards:read"],
    scopeDescriptions: {
      "me:read": "Read your profile",
      "boards:read": "Read your boards and their items",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/v2",
    method: "POST",
    body: '{"query":"query { me { id name email account { id name } } }"}',
    headers: { "content-type": "application/json" },
    idPath: "data.me.id",
    displayNamePath: "data.me.name",
    metadata: { email: "data.me.email", accountId: "data.me.account.id" },
  },
});
