/**
 * Heroku: OAuth 2.0 authorization code on id.heroku.com (scopes `identity`, `read`, `write`…),
 * client credentials in the body; eight-hour access tokens with refresh tokens. The identity is the
 * Platform API's `GET /account` (with its versioned Accept header). No webhook section: Heroku's app webhooks
 * are created per app through the API with the account's token (per-account).
 * Polled: apps are read on a schedule from the app list (up to 1,000 in one page, `Range: id ..`); an
 * app updated after the newest change seen is forwarded.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "heroku",
  displayName: "Heroku",
  category: "code",
  description: "Read the apps, releases and add-ons of a Heroku account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#430098"/>' +
    '<path d="M12 5l7 3.5-7 3.5-7-3.5zM5 12l7 3.5 7-3.5M5 15.5 12 19l7-3.5" fill="none" stroke="#fff" stroke-width="1.6" stroke-linejoin="round"/></svg>',
  docs: [
    "https://devcenter.heroku.com/articles/oauth",
    "https://devcenter.heroku.com/articles/platform-api-reference#account-info",
    "https://devcenter.heroku.com/articles/app-webhooks",
    "https://devcenter.heroku.com/articles/platform-api-reference#app-list",
    "https://devcenter.heroku.com/articles/platform-api-reference#ranges",
    "https://devcenter.heroku.com/articles/platform-api-reference#rate-limits",
  ],
  oauth: {
    authorizeUrl: "https://id.heroku.com/oauth/authorize",
    tokenUrl: "https://id.heroku.com/oauth/token",
    scopes: ["read"],
    scopeDescriptions: {
      read: "Read your Heroku apps and account (not their configuration secrets)",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/account",
    headers: { accept: "application/vnd.heroku+json; version=3" },
    idPath: "id",
    displayNamePath: "email",
    metadata: { name: "name" },
  },
  api: { baseUrl: "https://api.heroku.com" },
  triggers: [
    {
      name: "app_updated",
      displayName: "App created or updated",
      description: "An app the user can access was created or changed (a release, a config or setting change), read from the app list on a schedule.",
      providerEvent: "GET /apps",
      // One app as the list answers it.
      samplePayload: {
        id: "01234567-89ab-cdef-0123-456789abcdef",
        name: "example",
        created_at: "2026-01-01T09:00:00Z",
        updated_at: "2026-01-01T10:00:00Z",
        released_at: "2026-01-01T10:00:00Z",
        maintenance: false,
        owner: { email: "username@example.com", id: "01234567-89ab-cdef-0123-456789abcdef" },
        region: { id: "01234567-89ab-cdef-0123-456789abcdef", name: "us" },
        stack: { id: "01234567-89ab-cdef-0123-456789abcdef", name: "heroku-24" },
        web_url: "https://example.herokuapp.com/",
      },
    },
  ],
  polling: {
    triggers: {
      // One page of up to 1,000 apps (the Range header pages by id, which every list accepts); version 3 as everywhere.
      app_updated: {
        request: {
          path: "/apps",
          headers: { accept: "application/vnd.heroku+json; version=3", range: "id ..; max=1000" },
        },
        id: "id",
        version: "updated_at",
        occurredAt: ["updated_at"],
        cursor: { from: "version" },
      },
    },
  },
});
