/**
 * Dropbox: OAuth 2.0 with PKCE and scoped apps; `token_access_type=offline` for a refresh token.
 * Connect only: Dropbox webhooks list the accounts whose files changed, without the change itself.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "dropbox",
  displayName: "Dropbox",
  category: "files",
  description: "Read-only access to a Dropbox account's profile and file metadata.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0061fe"/>' +
    '<path d="M8 5 4 7.5 8 10l4-2.5zM16 5l-4 2.5 4 2.5 4-2.5zM8 10l-4 2.5L8 15l4-2.5zM16 10l-4 2.5 4 2.5 4-2.5zM8 16l4 2.5 4-2.5-4-2.5z" fill="#fff"/></svg>',
  docs: [
    "https://www.dropbox.com/developers/documentation/http/documentation#auth-token-revoke",
    "https://developers.dropbox.com/oauth-guide",
    "https://www.dropbox.com/developers/documentation/http/documentation#oauth2-authorize",
    "https://www.dropbox.com/developers/documentation/http/documentation#users-get_current_account",
  ],
  oauth: {
    authorizeUrl: "https://www.dropbox.com/oauth2/authorize",
    tokenUrl: "https://api.dropboxapi.com/oauth2/token",
    apiUrl: "https://api.dropboxapi.com/2",
    scopes: ["account_info.read", "files.metadata.read"],
    scopeDescriptions: {
      "account_info.read": "View your Dropbox account information",
      "files.metadata.read": "View information about your Dropbox files and folders",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_basic",
    extraAuthorizeParams: { token_access_type: "offline" },
    refresh: true,
    // auth/token/revoke: an RPC endpoint without arguments, authenticated by the token itself (no
    // body, no Content-Type); it disables that token, its refresh token and the refresh token's other access tokens.
    revocation: { url: "https://api.dropboxapi.com/2/auth/token/revoke", method: "POST", body: "none", clientAuth: "bearer_token" },
  },
  // An RPC endpoint: a POST, sent without a body as in Dropbox's own curl example.
  identity: {
    path: "/users/get_current_account",
    method: "POST",
    idPath: "account_id",
    displayNamePath: "name.display_name",
    metadata: { email: "email", country: "country" },
  },
});
