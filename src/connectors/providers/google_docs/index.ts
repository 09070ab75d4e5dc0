/**
 * Google Docs: Google's OAuth 2.0 for web server apps (PKCE, `access_type=offline`), the read-only
 * Docs scope plus OpenID for the identity (the user info `sub`). Connect only: Docs has no push
 * notifications of its own.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "google_docs",
  displayName: "Google Docs",
  category: "docs",
  description: "Read the documents of a Google account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#4285f4"/>' +
    '<path d="M8 5h6l3 3v11H8z" fill="none" stroke="#fff" stroke-width="1.8" stroke-linejoin="round"/><path d="M10 12h5M10 15h5" stroke="#fff" stroke-width="1.5" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.google.com/identity/protocols/oauth2/web-server",
    "https://developers.google.com/workspace/docs/api/auth",
    "https://developers.google.com/identity/openid-connect/openid-connect#obtaininguserprofileinformation",
  ],
  oauth: {
    authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    apiUrl: "https://www.googleapis.com",
    scopes: ["openid", "email", "https://www.googleapis.com/auth/documents.readonly"],
    scopeDescriptions: {
      openid: "Confirm who you are on Google",
      email: "See your email address",
      "https://www.googleapis.com/auth/documents.readonly": "See your Google Docs documents",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_post",
    extraAuthorizeParams: { access_type: "offline", prompt: "consent", include_granted_scopes: "true" },
    refresh: true,
  },
  identity: {
    path: "/oauth2/v3/userinfo",
    idPath: "sub",
    displayNamePath: "email",
    metadata: { name: "name" },
  },
});
