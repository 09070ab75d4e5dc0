/**
 * Heroku: OAuth 2.0 authorization code on id.heroku.com (scopes `identity`, `read`, `write`…),
 * client credentials in the body; eight-hour access tokens with refresh tokens. The identity is the
 * Platform API's `GET /account` (with its versioned Accept header). Connect only: Heroku's app webhooks
 * are created per app through the API with the account's token (per-account).
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
  ],
  oauth: {
    authorizeUrl: "https://id.heroku.com/oauth/authorize",
    tokenUrl: "https://id.heroku.com/oauth/token",
    apiUrl: "https://api.heroku.com",
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
});
