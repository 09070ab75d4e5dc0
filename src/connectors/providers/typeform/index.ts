/**
 * Typeform: OAuth 2.0 with the `offline` scope for refresh tokens. Connect only: Typeform webhook
 * payloads name the form, not the account, so they cannot be routed to a connected account.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "typeform",
  displayName: "Typeform",
  category: "forms",
  description: "Read the forms and responses of a Typeform account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#262627"/>' +
    '<path d="M7 8h10M12 8v9" stroke="#fff" stroke-width="2.2" stroke-linecap="round"/></svg>',
  docs: [
    "https://www.typeform.com/developers/get-started/applications/",
    "https://www.typeform.com/developers/get-started/scopes/",
    "https://www.typeform.com/developers/create/reference/retrieve-own-account/",
  ],
  oauth: {
    authorizeUrl: "https://api.typeform.com/oauth/authorize",
    tokenUrl: "https://api.typeform.com/oauth/token",
    apiUrl: "https://api.typeform.com",
    scopes: ["accounts:read", "forms:read", "responses:read", "offline"],
    scopeDescriptions: {
      "accounts:read": "Read your account information",
      "forms:read": "Read your forms",
      "responses:read": "Read the responses to your forms",
      offline: "Keep this access while you are away (until you revoke it)",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/me",
    idPath: "user_id",
    displayNamePath: "alias",
    metadata: { email: "email" },
  },
});
