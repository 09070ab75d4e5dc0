/**
 * Confluence Cloud: Atlassian's OAuth 2.0 (3LO) like Jira — `audience=api.atlassian.com`,
 * `offline_access` for a rotating refresh token — and the Atlassian account as the identity (`GET /me`).
 * The site's cloud id is read from `accessible-resources` when calling the API. Connect only: OAuth 2.0
 * apps register webhooks per site through the API (per-account, and they expire after 30 days).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "confluence",
  displayName: "Confluence",
  category: "docs",
  description: "Read the spaces and pages of a Confluence Cloud site.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1868db"/>' +
    '<path d="M8 5h6l3 3v11H8z" fill="none" stroke="#fff" stroke-width="1.8" stroke-linejoin="round"/><path d="M10 12h5M10 15h5" stroke="#fff" stroke-width="1.5" stroke-linecap="round"/></svg>',
  docs: [
    "https://developer.atlassian.com/cloud/confluence/oauth-2-3lo-apps/",
    "https://developer.atlassian.com/cloud/confluence/scopes-for-oauth-2-3LO-and-forge-apps/",
    "https://developer.atlassian.com/cloud/confluence/rest/v2/intro/",
  ],
  oauth: {
    authorizeUrl: "https://auth.atlassian.com/authorize",
    tokenUrl: "https://auth.atlassian.com/oauth/token",
    apiUrl: "https://api.atlassian.com",
    scopes: ["read:confluence-space.summary", "read:confluence-content.summary", "read:me", "offline_access"],
    scopeDescriptions: {
      "read:confluence-space.summary": "Read a summary of your Confluence spaces",
      "read:confluence-content.summary": "Read a summary of your Confluence pages and blog posts",
      "read:me": "Read your Atlassian profile (your account id, name and email)",
      offline_access: "Keep this access while you are away (until you revoke it)",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    extraAuthorizeParams: { audience: "api.atlassian.com", prompt: "consent" },
    refresh: true,
  },
  identity: {
    path: "/me",
    idPath: "account_id",
    displayNamePath: "name",
    metadata: { email: "email" },
  },
});
