/**
 * Wrike: OAuth 2.0 authorization code (API v4) with comma-separated scopes; access tokens last an
 * hour and come with refresh tokens. The token answer names the account's data-centre `host`
 * (www.wrike.com or app-eu.wrike.com); this declaration reads the identity on www.wrike.com
 * (`GET /api/v4/contacts?me=true`).
 * Polled: tasks are read from the task list, most recently updated first, since the newest update
 * seen (Wrike's webhooks are created per folder or task, each with its own `X-Hook-Secret`).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "wrike",
  displayName: "Wrike",
  category: "project_management",
  description: "Read the folders, projects and tasks of a Wrike account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#08cf65"/>' +
    '<path d="M6.5 12.5l3.5 3.5 7.5-8" fill="none" stroke="#fff" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developers.wrike.com/oauth-20-authorization/",
    "https://developers.wrike.com/api/v4/contacts/",
    "https://developers.wrike.com/webhooks/",
    "https://developers.wrike.com/api/v4/tasks/",
  ],
  oauth: {
    authorizeUrl: "https://login.wrike.com/oauth2/authorize/v4",
    tokenUrl: "https://login.wrike.com/oauth2/token",
    scopes: ["wsReadOnly"],
    scopeDescriptions: {
      wsReadOnly: "Read your Wrike folders, projects, tasks and contacts",
    },
    scopeSeparator: ",",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  identity: {
    path: "/api/v4/contacts?me=true",
    idPath: "data[].id",
    displayNamePath: "data[].primaryEmail",
    metadata: { firstName: "data[].firstName", lastName: "data[].lastName" },
  },
  api: { baseUrl: "https://www.wrike.com" },
  triggers: [
    {
      name: "task_updated",
      displayName: "Task created or updated",
      description: "A task the account can see was created or changed (read from the task list on a schedule).",
      providerEvent: "GET /api/v4/tasks",
      // One task as the list answers it.
      samplePayload: {
        id: "IEAGIITRKQAMBPTY",
        accountId: "IEAGIITR",
        title: "Prepare the quarterly report",
        status: "Active",
        importance: "Normal",
        createdDate: "2026-01-01T09:00:00Z",
        updatedDate: "2026-01-01T10:00:00Z",
        dates: { type: "Planned", duration: 480, start: "2026-01-05T09:00:00", due: "2026-01-05T17:00:00" },
        scope: "WsTask",
        customStatusId: "IEAGIITRJMAAAAAA",
        permalink: "https://www.wrike.com/open.htm?id=123456789",
        priority: "0c7e4c008000000000005c00",
      },
    },
  ],
  polling: {
    triggers: {
      // Most recently updated first; `updatedDate` takes a JSON range, here from the newest update seen.
      task_updated: {
        request: {
          path: "/api/v4/tasks",
          query: { sortField: "UpdatedDate", sortOrder: "Desc", pageSize: "100", updatedDate: '{"start":"{cursor}"}' },
        },
        items: "data",
        id: "id",
        version: "updatedDate",
        occurredAt: ["updatedDate"],
        cursor: { from: "version" },
      },
    },
  },
});
