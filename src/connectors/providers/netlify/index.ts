/**
 * Netlify: OAuth 2.0 authorization code (no scopes); access tokens do not expire. The identity is
 * `GET /api/v1/user`. Connect only: Netlify's outgoing webhooks are notifications configured per site
 * (per-account), each signed with its own JWS secret.
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
  ],
  oauth: {
    authorizeUrl: "https://app.netlify.com/authorize",
    tokenUrl: "https://api.netlify.com/oauth/token",
    apiUrl: "https://api.netlify.com",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/api/v1/user",
    idPath: "id",
    displayNamePath: "full_name",
    metadata: { email: "email" },
  },
});
