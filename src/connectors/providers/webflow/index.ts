/**
 * Webflow Data API v2: OAuth 2.0 authorization code with space-separated scopes; access tokens do not
 * expire. The identity is the user who authorized (`GET /v2/token/authorized_by`). Connect only: Webflow
 * webhooks are created per site through the API with the site's token (per-account).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "webflow",
  displayName: "Webflow",
  category: "design",
  description: "Read the sites, collections and form submissions of a Webflow workspace.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#146ef5"/>' +
    '<path d="M12 6l7 12H5z" fill="#fff"/></svg>',
  docs: [
    "https://developers.webflow.com/data/reference/oauth-app",
    "https://developers.webflow.com/data/reference/token/authorized-by",
    "https://developers.webflow.com/data/docs/working-with-webhooks",
  ],
  oauth: {
    authorizeUrl: "https://webflow.com/oauth/authorize",
    tokenUrl: "https://api.webflow.com/oauth/access_token",
    apiUrl: "https://api.webflow.com",
    scopes: ["authorized_user:read", "sites:read", "cms:read"],
    scopeDescriptions: {
      "authorized_user:read": "Read your Webflow name and email",
      "sites:read": "Read your Webflow sites",
      "cms:read": "Read your CMS collections and items",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/v2/token/authorized_by",
    idPath: "id",
    displayNamePath: "email",
    metadata: { firstName: "firstName", lastName: "lastName" },
  },
});
