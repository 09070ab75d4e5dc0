/**
 * Google Drive: Google's OAuth 2.0 for web server apps with the metadata-only Drive scope.
 * Drive push channels say "changed" without data and need a channel per account; instead the
 * changes list is read on a schedule from a page token (polling), which is what a channel's
 * notification would make us read anyway.
 */
import { declareConnector } from "../../declaration.ts";
import { googleOAuth } from "../gmail/google.ts";

export default declareConnector({
  name: "google_drive",
  displayName: "Google Drive",
  category: "files",
  description: "Read-only access to the names and metadata of the files in a Google Drive, and their changes.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#188038"/>' +
    '<path d="M9 5h6l5 8.5-3 5.5H7l-3-5.5z" fill="none" stroke="#fff" stroke-width="1.8" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developers.google.com/identity/protocols/oauth2/web-server",
    "https://developers.google.com/drive/api/guides/api-specific-auth",
    "https://developers.google.com/drive/api/reference/rest/v3/about/get",
    "https://developers.google.com/drive/api/guides/manage-changes",
    "https://developers.google.com/drive/api/reference/rest/v3/changes/list",
    "https://developers.google.com/drive/api/reference/rest/v3/changes/getStartPageToken",
  ],
  oauth: googleOAuth({
    "https://www.googleapis.com/auth/drive.metadata.readonly": "See information about your Google Drive files",
  }),
  // about.get requires `fields`; permissionId is the user's stable id within Drive.
  identity: {
    path: "/drive/v3/about?fields=user",
    idPath: "user.permissionId",
    displayNamePath: "user.displayName",
    metadata: { email: "user.emailAddress" },
  },
  api: { baseUrl: "https://www.googleapis.com" },
  triggers: [
    {
      name: "file_changed",
      displayName: "File changed",
      description: "A file was created, changed, trashed or removed, or the account gained or lost access to it.",
      providerEvent: "GET /drive/v3/changes",
      // One Change resource, with the fields the request asks for.
      samplePayload: {
        changeType: "file",
        fileId: "1ZdR3L3qP4Bkq8noWLJHSr_iBau0DNT4Kli4SxNc2YEo",
        removed: false,
        time: "2026-01-01T10:00:00.000Z",
        file: {
          id: "1ZdR3L3qP4Bkq8noWLJHSr_iBau0DNT4Kli4SxNc2YEo",
          name: "Quarterly report",
          mimeType: "application/vnd.google-apps.document",
          modifiedTime: "2026-01-01T10:00:00.000Z",
          trashed: false,
        },
      },
    },
  ],
  polling: {
    triggers: {
      // The position is a page token: changes/startPageToken first, then each answer's
      // nextPageToken (more pages now) or, on the last page, newStartPageToken.
      file_changed: {
        start: { path: "/drive/v3/changes/startPageToken", query: {}, headers: {}, cursor: "startPageToken" },
        request: {
          path: "/drive/v3/changes",
          query: {
            pageToken: "{cursor}",
            pageSize: "100",
            fields: "nextPageToken,newStartPageToken,changes(changeType,fileId,removed,time,file(id,name,mimeType,modifiedTime,trashed))",
          },
        },
        items: "changes",
        id: "fileId",
        version: "time",
        occurredAt: ["time"],
        cursor: { from: "answer", paths: ["nextPageToken", "newStartPageToken"] },
        more: "nextPageToken",
      },
    },
  },
});
