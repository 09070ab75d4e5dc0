/**
 * Smartsheet: OAuth 2.0 authorization code with space-separated access scopes; access tokens last
 * seven days and come with refresh tokens. The identity is `GET /2.0/users/me`. Smartsheet Gov and
 * Smartsheet EU use other hosts; this declaration uses smartsheet.com. No webhook section: webhooks are created
 * per sheet through the API with the user's token and verified with a per-webhook challenge.
 * Polled: sheets are read on a schedule from the sheet list, modified since the newest change seen
 * (`modifiedSince`).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "smartsheet",
  displayName: "Smartsheet",
  category: "project_management",
  description: "Read the sheets, reports and workspaces of a Smartsheet user.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0563c1"/>' +
    '<path d="M6 5h12v14H6zM6 10h12M6 14.5h12M11 10v9" fill="none" stroke="#fff" stroke-width="1.5"/></svg>',
  docs: [
    "https://developers.smartsheet.com/api/smartsheet/guides/advanced-topics/oauth",
    "https://developers.smartsheet.com/api/smartsheet/openapi/users/get-current-user",
    "https://developers.smartsheet.com/api/smartsheet/guides/webhooks",
    "https://developers.smartsheet.com/api/smartsheet/openapi/sheets/list-sheets",
    "https://developers.smartsheet.com/api/smartsheet/guides/basics/rate-limiting",
    "https://developers.smartsheet.com/api/smartsheet/openapi/tokens/tokens-delete",
  ],
  oauth: {
    authorizeUrl: "https://app.smartsheet.com/b/authorize",
    tokenUrl: "https://api.smartsheet.com/2.0/token",
    scopes: ["READ_SHEETS", "READ_USERS"],
    scopeDescriptions: {
      READ_SHEETS: "Read your sheets, reports and workspaces",
      READ_USERS: "Read the users of your Smartsheet account",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
    // developers.smartsheet.com/api/smartsheet/openapi/tokens/tokens-delete: DELETE /token with the
    // access token as the bearer; deleteAllForApiClient=true deletes every token of this client for
    // the user (the whole grant), not only the one sent.
    revocation: {
      url: "https://api.smartsheet.com/2.0/token",
      query: { deleteAllForApiClient: "true" },
      method: "DELETE",
      body: "none",
      clientAuth: "bearer_token",
    },
  },
  identity: {
    path: "/users/me",
    idPath: "id",
    displayNamePath: "email",
    metadata: { firstName: "firstName", lastName: "lastName", account: "account.id" },
  },
  // With the version, the official SDK's base (smartsheet `smartSheetURIs.defaultBaseURI`).
  api: { baseUrl: "https://api.smartsheet.com/2.0" },
  triggers: [
    {
      name: "sheet_modified",
      displayName: "Sheet created or modified",
      description: "A sheet the user can access was created or changed, read from the sheet list on a schedule.",
      providerEvent: "GET /sheets",
      // One sheet as the list answers it.
      samplePayload: {
        id: 4583173393803140,
        name: "sheet 1",
        accessLevel: "OWNER",
        version: 5,
        permalink: "https://app.smartsheet.com/b/home?lx=xUefSOIYmn07iJJesvSHCQ",
        createdAt: "2026-01-01T09:00:00Z",
        modifiedAt: "2026-01-01T10:00:00Z",
      },
    },
  ],
  polling: {
    triggers: {
      // `modifiedSince` returns sheets modified at or after it; the reader drops the one it has seen.
      sheet_modified: {
        request: { path: "/sheets", query: { includeAll: "true", modifiedSince: "{cursor}" } },
        items: "data",
        id: "id",
        version: "modifiedAt",
        occurredAt: ["modifiedAt"],
        cursor: { from: "version" },
      },
    },
  },
});
