/**
 * Webflow Data API v2: OAuth 2.0 authorization code with space-separated scopes; access tokens do not
 * expire. The identity is the user who authorized (`GET /v2/token/authorized_by`). No webhook section: Webflow
 * webhooks are created per site through the API with the site's token (per-account).
 * Polled: publishes are read on a schedule from the site list (each site's `lastPublished`).
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
    "https://developers.webflow.com/data/reference/sites/list",
    "https://developers.webflow.com/data/reference/rate-limits",
  ],
  oauth: {
    authorizeUrl: "https://webflow.com/oauth/authorize",
    tokenUrl: "https://api.webflow.com/oauth/access_token",
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
    // developers.webflow.com/data/reference/oauth-app ("Revoke an access token"): JSON with
    // `client_id`, `client_secret` and `access_token`; 200 `{"did_revoke": true}`.
    revocation: { url: "https://webflow.com/oauth/revoke_authorization", method: "POST", tokenParam: "access_token", body: "json", clientAuth: "client_secret_post" },
  },
  identity: {
    path: "/token/authorized_by",
    idPath: "id",
    displayNamePath: "email",
    metadata: { firstName: "firstName", lastName: "lastName" },
  },
  // The Data API v2 with its version, as the official SDK's base (webflow-api `WebflowEnvironment.DataApi`).
  api: { baseUrl: "https://api.webflow.com/v2" },
  triggers: [
    {
      name: "site_published",
      displayName: "Site published",
      description: "A site the token can access was published (read from the site list on a schedule).",
      providerEvent: "GET /sites",
      // One site as the list answers it.
      samplePayload: {
        id: "42e63e98c9a982ac9b8b741",
        workspaceId: "42e63e98c9a982ac9b8b742",
        displayName: "The Hitchhiker's Guide to the Galaxy",
        shortName: "hitchhikers-guide",
        previewUrl: "https://screenshots.webflow.com/sites/6258612d1ee792848f805dcf/20231219211811_d5990556c743f33b7071300a03bf67e6.png",
        timeZone: "Magrathea/FactoryFloor",
        createdOn: "2026-01-01T09:00:00.000Z",
        lastUpdated: "2026-01-01T10:00:00.000Z",
        lastPublished: "2026-01-01T10:00:00.000Z",
        customDomains: [{ id: "589a331aa51e760df7ccb89d", url: "hitchhikersguide.galaxy" }],
      },
    },
  ],
  polling: {
    triggers: {
      // A site never published has no `lastPublished` and is not forwarded until it is.
      site_published: {
        request: { path: "/sites" },
        items: "sites",
        id: "id",
        version: "lastPublished",
        occurredAt: ["lastPublished"],
        cursor: { from: "version" },
      },
    },
  },
});
