/**
 * Bitly API v4: OAuth 2.0 authorization code (the web flow; no scopes); access tokens do not expire.
 * The identity is `GET /v4/user` (`login`). Connect only: Bitly has no account webhooks.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "bitly",
  displayName: "Bitly",
  category: "marketing",
  description: "Read and create the short links of a Bitly account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#ee6123"/>' +
    '<path d="M5 13c2-4 4-4 7 0s5 4 7 0" fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round"/></svg>',
  docs: [
    "https://dev.bitly.com/docs/getting-started/authentication/",
    "https://dev.bitly.com/api-reference/#getUser",
  ],
  oauth: {
    authorizeUrl: "https://bitly.com/oauth/authorize",
    tokenUrl: "https://api-ssl.bitly.com/oauth/access_token",
    apiUrl: "https://api-ssl.bitly.com",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/v4/user",
    idPath: "login",
    displayNamePath: "name",
    metadata: { defaultGroup: "default_group_guid" },
  },
});
