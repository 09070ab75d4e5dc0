/**
 * Basecamp (37signals Launchpad): OAuth 2.0 authorization code with `type=web_server`, no scopes;
 * access tokens last two weeks and come with refresh tokens. The identity is Launchpad's
 * `GET /authorization.json` (the person, and the accounts they can reach). Connect only: Basecamp
 * webhooks are created per project through the API with the account's token (per-account).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "basecamp",
  displayName: "Basecamp",
  category: "project_management",
  description: "Read the projects, to-dos and messages of Basecamp accounts.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1d2d35"/>' +
    '<path d="M6.5 12.5l3.5 3.5 7.5-8" fill="none" stroke="#fff" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  docs: [
    "https://github.com/basecamp/api/blob/master/sections/authentication.md",
    "https://github.com/basecamp/bc3-api/blob/master/sections/webhooks.md",
  ],
  oauth: {
    authorizeUrl: "https://launchpad.37signals.com/authorization/new",
    tokenUrl: "https://launchpad.37signals.com/authorization/token",
    apiUrl: "https://launchpad.37signals.com",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    extraAuthorizeParams: { type: "web_server" },
    refresh: true,
  },
  identity: {
    path: "/authorization.json",
    idPath: "identity.id",
    displayNamePath: "identity.email_address",
    metadata: { firstName: "identity.first_name", lastName: "identity.last_name", accountId: "accounts[].id" },
  },
});
