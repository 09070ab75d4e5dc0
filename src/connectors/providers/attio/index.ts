/**
 * Attio: OAuth 2.0 authorization code; the app's scopes are chosen in Attio's developer dashboard,
 * not on the authorize URL. Access tokens do not expire. `GET /v2/self` introspects the token and names
 * the workspace that granted it. No webhook section: Attio webhooks are created per workspace through the API
 * with the workspace's token (a per-account subscription), and each delivery batches an `events` array.
 * Polled: tasks are read on a schedule from the task list, newest first (`sort=created_at:desc`; the
 * app needs the `task:read` scope in Attio's dashboard).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "attio",
  displayName: "Attio",
  category: "crm",
  description: "Read the records, lists and notes of an Attio workspace.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1a1d21"/>' +
    '<path d="M6 6h5v5H6zM13 6h5v5h-5zM6 13h5v5H6zM13 13h5v5h-5z" fill="none" stroke="#fff" stroke-width="1.6"/></svg>',
  docs: [
    "https://docs.attio.com/rest-api/tutorials/connect-an-app-through-oauth",
    "https://docs.attio.com/rest-api/endpoint-reference/meta/identify",
    "https://docs.attio.com/rest-api/guides/webhooks",
    "https://docs.attio.com/rest-api/endpoint-reference/tasks/list-tasks",
    "https://docs.attio.com/rest-api/guides/rate-limiting",
  ],
  oauth: {
    authorizeUrl: "https://app.attio.com/authorize",
    tokenUrl: "https://app.attio.com/oauth/token",
    // Scopes are set on the app in Attio's developer dashboard.
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    // Attio access tokens do not expire and no refresh token is issued.
    refresh: false,
  },
  identity: {
    path: "/v2/self",
    idPath: "workspace_id",
    displayNamePath: "workspace_name",
    metadata: { workspaceSlug: "workspace_slug", memberId: "authorized_by_workspace_member_id" },
  },
  api: { baseUrl: "https://api.attio.com" },
  triggers: [
    {
      name: "task_created",
      displayName: "Task created",
      description: "A task was created in the workspace (read from the task list on a schedule).",
      providerEvent: "GET /v2/tasks",
      // One task as the list answers it.
      samplePayload: {
        id: { workspace_id: "14beef7a-99f7-4534-a87e-70b564330a4c", task_id: "649e34f4-c39a-4f4d-99ef-48a36bef8f04" },
        content_plaintext: "Follow up on current software solutions",
        deadline_at: "2026-01-08T15:00:00.000000000Z",
        is_completed: false,
        linked_records: [{ target_object_id: "97052eb9-e65e-443f-a297-f2d9a4a7f795", target_record_id: "bf071e1f-6035-429d-b874-d83ea64ea13b" }],
        assignees: [{ referenced_actor_type: "workspace-member", referenced_actor_id: "50cf242c-7fa3-4cad-87d0-75b1af71c57b" }],
        created_by_actor: { type: "workspace-member", id: "50cf242c-7fa3-4cad-87d0-75b1af71c57b" },
        created_at: "2026-01-01T10:00:00.000000000Z",
      },
    },
  ],
  polling: {
    triggers: {
      // Newest first; the position is the newest `created_at` seen.
      task_created: {
        request: { path: "/v2/tasks", query: { limit: "100", sort: "created_at:desc" } },
        items: "data",
        id: "id.task_id",
        version: "created_at",
        occurredAt: ["created_at"],
        cursor: { from: "version" },
      },
    },
  },
});
