/**
 * Asana: OAuth 2.0 with PKCE and OpenID scopes for the identity. Connect only: Asana webhooks sign
 * with a secret Asana picks per webhook at its X-Hook-Secret handshake, not a secret the operator
 * configures, so they are not offered as triggers yet.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "asana",
  displayName: "Asana",
  category: "project_management",
  description: "Connect Asana accounts to work with their workspaces, projects and tasks.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#f06a6a"/>' +
    '<circle cx="12" cy="8" r="3" fill="#fff"/><circle cx="7.5" cy="15" r="3" fill="#fff"/><circle cx="16.5" cy="15" r="3" fill="#fff"/></svg>',
  docs: [
    "https://developers.asana.com/docs/oauth",
    "https://developers.asana.com/docs/openid-connect",
    "https://developers.asana.com/reference/getuser",
  ],
  oauth: {
    authorizeUrl: "https://app.asana.com/-/oauth_authorize",
    tokenUrl: "https://app.asana.com/-/oauth_token",
    apiUrl: "https://app.asana.com/api/1.0",
    scopes: ["openid", "email", "profile"],
    scopeDescriptions: {
      openid: "Confirm your Asana identity",
      email: "Read your email address",
      profile: "Read your name and profile photo",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/users/me",
    idPath: "data.gid",
    displayNamePath: "data.name",
    metadata: { email: "data.email" },
  },
});
