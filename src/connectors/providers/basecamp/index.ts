/**
 * Basecamp (37signals Launchpad): OAuth 2.0 authorization code with `type=web_server`, no scopes;
 * access tokens last two weeks and come with refresh tokens. The identity is Launchpad's
 * `GET /authorization.json` (the person, and the accounts they can reach).
 * Basecamp's webhooks are created per project, so to-dos are polled from the account's recordings
 * list, most recently updated first.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "basecamp",
  displayName: "Basecamp",
  category: "project_management",
  description: "Read the projects, to-dos and messages of Basecamp accounts.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1d2d35"/>' +
    '<path d="M6.5 12.5l3.5 3.5 7.5-8" fill="none" stroke="#fff" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  docs: [
    "https://github.com/basecamp/api/blob/master/sections/authentication.md",
    "https://github.com/basecamp/bc3-api/blob/master/sections/webhooks.md",
    "https://github.com/basecamp/bc3-api/blob/master/sections/recordings.md",
    "https://github.com/basecamp/bc3-api/blob/master/sections/todos.md",
  ],
  oauth: {
    authorizeUrl: "https://launchpad.37signals.com/authorization/new",
    tokenUrl: "https://launchpad.37signals.com/authorization/token",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    extraAuthorizeParams: { type: "web_server" },
    refresh: true,
  },
  identity: {
    path: "/authorization.json",
    idPath: "identity.id",
    displayNamePath: "identity.email_address",
    metadata: { firstName: "identity.first_name", lastName: "identity.last_name", accountId: "accounts[].id" },
  },
  // Basecamp 4's API is per account: every path is under the account id (the first of the
  // accounts Launchpad lists, unless the connection's params name another accountId).
  api: { baseUrl: "https://launchpad.37signals.com", connectionBaseUrl: "https://3.basecampapi.com/{accountId}" },
  triggers: [
    {
      name: "todo_changed",
      displayName: "To-do created or changed",
      description: "A to-do was created or changed in any project of the account (read from the recordings list on a schedule).",
      providerEvent: "GET /projects/recordings.json?type=Todo",
      // One to-do as the recordings list answers it (abridged).
      samplePayload: {
        id: 1069479424,
        status: "active",
        visible_to_clients: false,
        created_at: "2026-01-01T09:00:00.000Z",
        updated_at: "2026-01-01T10:00:00.000Z",
        title: "Program the flux capacitor",
        inherits_status: true,
        type: "Todo",
        url: "https://3.basecampapi.com/195539477/buckets/2085958499/todos/1069479424.json",
        app_url: "https://3.basecamp.com/195539477/buckets/2085958499/todos/1069479424",
        parent: { id: 1069479400, title: "Background and research", type: "Todolist" },
        bucket: { id: 2085958499, name: "The Leto Laptop", type: "Project" },
        creator: { id: 1049715914, name: "Victor Cooper", email_address: "victor@honchodesign.com" },
        completed: false,
        content: "Program the flux capacitor",
        due_on: null,
      },
    },
  ],
  polling: {
    triggers: {
      // Most recently updated first across all active projects; the recordings list has no "since".
      todo_changed: {
        request: { path: "/projects/recordings.json", query: { type: "Todo", sort: "updated_at", direction: "desc" } },
        id: "id",
        version: "updated_at",
        occurredAt: ["updated_at"],
        cursor: { from: "version" },
      },
    },
  },
});
