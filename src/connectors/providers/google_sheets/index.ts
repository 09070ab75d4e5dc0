/**
 * Google Sheets: Google's OAuth 2.0 for web server apps (PKCE, `access_type=offline`), the read-only
 * Sheets scope plus OpenID for the identity (the user info `sub`). Connect only: Sheets has no push
 * notifications of its own (Drive's change channels are per-account subscriptions).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "google_sheets",
  displayName: "Google Sheets",
  category: "docs",
  description: "Read the spreadsheets of a Google account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0f9d58"/>' +
    '<path d="M6 5h12v14H6zM6 10h12M6 14.5h12M11 10v9" fill="none" stroke="#fff" stroke-width="1.5"/></svg>',
  docs: [
    "https://developers.google.com/identity/protocols/oauth2/web-server",
    "https://developers.google.com/workspace/sheets/api/scopes",
    "https://developers.google.com/identity/openid-connect/openid-connect#obtaininguserprofileinformation",
  ],
  oauth: {
    authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    apiUrl: "https://www.googleapis.com",
    scopes: ["openid", "email", "https://www.googleapis.com/auth/spreadsheets.readonly"],
    scopeDescriptions: {
      openid: "Confirm who you are on Google",
      email: "See your email address",
      "https://www.googleapis.com/auth/spreadsheets.readonly": "See your Google Sheets spreadsheets",
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
