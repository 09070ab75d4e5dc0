/**
 * Google Calendar: Google's OAuth 2.0 for web server apps (offline access for a refresh token).
 * Connect only: Calendar push channels carry no event data and a per-channel token.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "google_calendar",
  displayName: "Google Calendar",
  category: "calendar",
  description: "Read-only access to the calendars and events of a Google account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1a73e8"/>' +
    '<rect x="5" y="6.5" width="14" height="12.5" rx="1.5" fill="#fff"/><rect x="5" y="6.5" width="14" height="3.5" fill="#d2e3fc"/>' +
    '<path d="M8 4.5v3.5M16 4.5v3.5" stroke="#fff" stroke-width="1.8" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.google.com/identity/protocols/oauth2/web-server",
    "https://developers.google.com/calendar/api/auth",
    "https://developers.google.com/calendar/api/v3/reference/calendarList/get",
  ],
  oauth: {
    authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    apiUrl: "https://www.googleapis.com",
    scopes: ["https://www.googleapis.com/auth/calendar.readonly"],
    scopeDescriptions: {
      "https://www.googleapis.com/auth/calendar.readonly": "See and download any calendar you can access",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_post",
    // Google sends a refresh token only with offline access, and again only when consent is shown.
    extraAuthorizeParams: { access_type: "offline", prompt: "consent", include_granted_scopes: "true" },
    refresh: true,
    // developers.google.com/identity/protocols/oauth2/web-server#tokenrevoke: POST the access or
    // refresh token as the form field `token`, no client authentication; revoking the refresh token
    // revokes the whole grant (its access tokens too).
    revocation: { url: "https://oauth2.googleapis.com/revoke", method: "POST", tokenParam: "token", body: "form", clientAuth: "none", token: "refresh" },
  },
  // The primary calendar's id is the account's email address.
  identity: {
    path: "/calendar/v3/users/me/calendarList/primary",
    idPath: "id",
    displayNamePath: "summary",
    lowercaseId: true,
    metadata: { timeZone: "timeZone" },
  },
});
