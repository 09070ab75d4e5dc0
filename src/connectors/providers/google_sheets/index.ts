/**
 * Google Sheets: Google's OAuth 2.0 for web server apps (PKCE, `access_type=offline`), the read-only
 * Sheets scope plus OpenID for the identity (the user info `sub`). No webhook section: Sheets has no push
 * notifications of its own (Drive's change channels are per-account subscriptions).
 * Polled: changed spreadsheets are read on a schedule from the Drive file list (`mimeType`
 * application/vnd.google-apps.spreadsheet, newest `modifiedTime` first; needs the Drive metadata
 * scope).
 */
import { declareConnector } from "../../declaration.ts";
import { googleOAuth } from "../gmail/google.ts";

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
    "https://developers.google.com/workspace/drive/api/reference/rest/v3/files/list",
    "https://developers.google.com/workspace/drive/api/guides/search-files",
  ],
  oauth: googleOAuth({
    openid: "Confirm who you are on Google",
    email: "See your email address",
    "https://www.googleapis.com/auth/spreadsheets.readonly": "See your Google Sheets spreadsheets",
    "https://www.googleapis.com/auth/drive.metadata.readonly": "See the names and change times of your Google Drive files (to notice changed spreadsheets)",
  }),
  identity: {
    path: "/oauth2/v3/userinfo",
    idPath: "sub",
    displayNamePath: "email",
    metadata: { name: "name" },
  },
  // The identity and the polled Drive changes are on www.googleapis.com; the Sheets API (and so the proxy,
  // as @googleapis/sheets's `rootUrl`) on a host of its own.
  api: { baseUrl: "https://www.googleapis.com", proxyBaseUrl: "https://sheets.googleapis.com" },
  triggers: [
    {
      name: "spreadsheet_changed",
      displayName: "Spreadsheet created or changed",
      description: "A spreadsheet the user can open was created or edited (read from the Drive file list on a schedule).",
      providerEvent: "GET /drive/v3/files",
      // One file as the list answers it (the fields asked for).
      samplePayload: {
        id: "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms",
        name: "Quarterly plan",
        mimeType: "application/vnd.google-apps.spreadsheet",
        modifiedTime: "2026-01-01T10:00:00.000Z",
        webViewLink: "https://docs.google.com/spreadsheets/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit",
        lastModifyingUser: { displayName: "Jane Doe", emailAddress: "jane@example.com" },
      },
    },
  ],
  polling: {
    triggers: {
      // Newest change first; the position is the newest `modifiedTime` seen. Trashed files are left out.
      spreadsheet_changed: {
        request: {
          path: "/drive/v3/files",
          query: {
            q: "mimeType='application/vnd.google-apps.spreadsheet' and trashed=false",
            orderBy: "modifiedTime desc",
            pageSize: "100",
            fields: "files(id,name,mimeType,modifiedTime,webViewLink,lastModifyingUser(displayName,emailAddress))",
          },
        },
        items: "files",
        id: "id",
        version: "modifiedTime",
        occurredAt: ["modifiedTime"],
        cursor: { from: "version" },
      },
    },
  },
});
