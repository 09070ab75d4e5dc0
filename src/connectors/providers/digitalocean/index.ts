/**
 * DigitalOcean: OAuth 2.0 authorization code (scope `read` or `read write`), client credentials in the
 * body; 30-day access tokens with refresh tokens. The identity is `GET /v2/account` (`account.uuid`).
 * Connect only: DigitalOcean has no account webhooks.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "digitalocean",
  displayName: "DigitalOcean",
  category: "code",
  description: "Read the droplets, apps and databases of a DigitalOcean team.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0069ff"/>' +
    '<circle cx="12" cy="12" r="5" fill="none" stroke="#fff" stroke-width="2.2"/></svg>',
  docs: [
    "https://docs.digitalocean.com/reference/api/oauth/",
    "https://docs.digitalocean.com/reference/api/digitalocean/#tag/Account",
  ],
  oauth: {
    authorizeUrl: "https://cloud.digitalocean.com/v1/oauth/authorize",
    tokenUrl: "https://cloud.digitalocean.com/v1/oauth/token",
    apiUrl: "https://api.digitalocean.com",
    scopes: ["read"],
    scopeDescriptions: {
      read: "Read your DigitalOcean resources",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/v2/account",
    idPath: "account.uuid",
    displayNamePath: "account.email",
    metadata: { teamUuid: "account.team.uuid", teamName: "account.team.name" },
  },
});
