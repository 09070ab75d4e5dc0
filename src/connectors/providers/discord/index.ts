/**
 * Discord: OAuth 2.0 authorization code grant with the `identify` scope. Connect only: Discord's
 * inbound requests (interactions, webhook events) are Ed25519-signed with the application's public
 * key, a scheme not shared by other connectors yet.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "discord",
  displayName: "Discord",
  category: "chat",
  description: "Connect Discord users to read their profile and the servers they belong to.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#5865f2"/>' +
    '<path d="M6 8.5C8 7 10 6.8 12 6.8s4 .2 6 1.7c.8 2.5 1 5 .6 7.7-1.5 1.1-3 1.5-4 1.6l-.8-1.3h-3.6l-.8 1.3c-1-.1-2.5-.5-4-1.6-.4-2.7-.2-5.2.6-7.7z" fill="#fff"/>' +
    '<circle cx="9.7" cy="12.5" r="1.3" fill="#5865f2"/><circle cx="14.3" cy="12.5" r="1.3" fill="#5865f2"/></svg>',
  docs: [
    "https://discord.com/developers/docs/topics/oauth2",
    "https://discord.com/developers/docs/resources/user#get-current-user",
  ],
  oauth: {
    authorizeUrl: "https://discord.com/oauth2/authorize",
    tokenUrl: "https://discord.com/api/oauth2/token",
    scopes: ["identify", "guilds"],
    scopeDescriptions: {
      identify: "Read your username, avatar and user id",
      guilds: "See which servers you are in",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_basic",
    refresh: true,
    // discord.com/developers/docs/topics/oauth2 ("Token Revocation Example"): the token as the form
    // field `token` (never JSON), HTTP Basic with the client; every access and refresh token of the
    // authorization is revoked, whichever is sent.
    revocation: { url: "https://discord.com/api/oauth2/token/revoke", method: "POST", tokenParam: "token", body: "form", clientAuth: "client_secret_basic", token: "refresh" },
  },
  identity: {
    path: "/v10/users/@me",
    idPath: "id",
    displayNamePath: "global_name",
    metadata: { username: "username" },
  },
  // The proxy base: @discordjs/rest: `api` https://discord.com/api, it adds `/v10` (https://discord.js.org/docs/packages/rest/main/RESTOptions:Interface).
  api: { baseUrl: "https://discord.com/api" },
});
