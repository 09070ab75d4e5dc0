/**
 * Netlify: OAuth 2.0 authorization code (no scopes); access tokens do not expire. The identity is
 * `GET /api/v1/user`. No webhook section: Netlify's outgoing webhooks are notifications configured per site
 * (per-account), each signed with its own JWS secret.
 * Polled: sites are read on a schedule from the site list; a site whose published deploy is newer than
 * the newest seen was deployed.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "netlify",
  displayName: "Netlify",
  category: "code",
  description: "Read the sites, deploys and forms of a Netlify account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#05bdba"/>' +
    '<path d="M6 6h5v5H6zM13 6h5v5h-5zM6 13h5v5H6zM13 13h5v5h-5z" fill="none" stroke="#fff" stroke-width="1.6"/></svg>',
  docs: [
    "https://docs.netlify.com/api/get-started/#authentication",
    "https://open-api.netlify.com/#tag/user",
    "https://docs.netlify.com/site-deploys/deploy-notifications/#outgoing-webhooks",
    "https://open-api.netlify.com/#tag/site/operation/listSites",
    "https://docs.netlify.com/api/get-started/#rate-limiting",
  ],
  oauth: {
    authorizeUrl: "https://app.netlify.com/authorize",
    tokenUrl: "https://api.netlify.com/oauth/token",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/user",
    idPath: "id",
    displayNamePath: "full_name",
    metadata: { email: "email" },
  },
  // With the version, the official SDK's base (@netlify/api: its host and `pathPrefix`).
  api: { baseUrl: "https://api.netlify.com/api/v1" },
  triggers: [
    {
      name: "site_deployed",
      displayName: "Site deployed",
      description: "A new deploy of one of the user's sites was published (read from the site list on a schedule).",
      providerEvent: "GET /sites",
      // One site as the list answers it, with its published deploy.
      samplePayload: {
        id: "3970e0fe-8564-4903-9a55-c5f8de49fb8b",
        name: "example",
        url: "https://example.netlify.app",
        admin_url: "https://app.netlify.com/sites/example",
        state: "current",
        created_at: "2026-01-01T09:00:00.000Z",
        updated_at: "2026-01-01T10:00:00.000Z",
        published_deploy: {
          id: "5d5d0b2e0f5b0a0007a8b0c1",
          state: "ready",
          context: "production",
          branch: "main",
          commit_ref: "6dcb09b5b57875f334f61aebed695e2e4193db5e",
          created_at: "2026-01-01T09:58:00.000Z",
          published_at: "2026-01-01T10:00:00.000Z",
        },
      },
    },
  ],
  polling: {
    triggers: {
      // The sites the user can reach (up to 100); the position is the newest publish time seen.
      site_deployed: {
        request: { path: "/sites", query: { filter: "all", per_page: "100" } },
        id: "id",
        version: "published_deploy.published_at",
        occurredAt: ["published_deploy.published_at"],
        cursor: { from: "version" },
      },
    },
  },
});
