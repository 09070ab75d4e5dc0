/**
 * Todoist: OAuth 2.0 (comma-separated scopes, access tokens that do not expire) and the unified
 * API v1 for the identity. App webhooks sign `X-Todoist-Hmac-SHA256` = base64 HMAC-SHA256 of the
 * body with the app's client secret, name the delivery in `X-Todoist-Delivery-ID`, and carry the
 * user the event belongs to in `user_id`.
 */
import { declareConnector } from "../../declaration.ts";

const userId = "2671355";
const initiator = { email: "alice@example.com", full_name: "Alice Example", id: userId, image_id: "ad38375bdb094286af59f1eab36d8f20", is_premium: true };
const task = {
  added_at: "2026-01-01T10:33:38.000000Z",
  added_by_uid: userId,
  assigned_by_uid: null,
  checked: false,
  child_order: 3,
  collapsed: false,
  completed_at: null,
  content: "Renew the TLS certificate",
  deadline: null,
  description: "",
  due: { date: "2026-01-05", is_recurring: false, lang: "en", string: "Jan 5", timezone: null },
  duration: null,
  id: "6X7rM8997g3RQmvh",
  is_deleted: false,
  labels: ["ops"],
  parent_id: null,
  priority: 3,
  project_id: "6Jf8VQXxpwv56VQ7",
  responsible_uid: null,
  section_id: null,
  url: "https://app.todoist.com/app/task/6X7rM8997g3RQmvh",
  user_id: userId,
};
const envelope = (eventName: string, triggeredAt: string, eventData: Record<string, unknown>) => ({
  event_name: eventName,
  user_id: userId,
  event_data: eventData,
  initiator,
  triggered_at: triggeredAt,
  version: "10",
});

export default declareConnector({
  name: "todoist",
  displayName: "Todoist",
  category: "project_management",
  description: "Tasks added, completed and commented on in a Todoist account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#e44332"/>' +
    '<path d="M5.5 8.5 12 12l6.5-3.5M5.5 12.5 12 16l6.5-3.5M5.5 16.5 12 20l6.5-3.5" stroke="#fff" stroke-width="1.6" fill="none" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developer.todoist.com/guides/#oauth",
    "https://developer.todoist.com/api/v1/#tag/Authorization",
    "https://developer.todoist.com/api/v1/#tag/User",
    "https://developer.todoist.com/api/v1/#tag/Webhooks",
  ],
  oauth: {
    authorizeUrl: "https://todoist.com/oauth/authorize",
    tokenUrl: "https://todoist.com/oauth/access_token",
    scopes: ["data:read"],
    scopeDescriptions: { "data:read": "Read your tasks, projects, labels and filters" },
    scopeSeparator: ",",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/user",
    idPath: "id",
    displayNamePath: "full_name",
    metadata: { email: "email", timezone: "tz_info.timezone" },
  },
  api: { baseUrl: "https://api.todoist.com/api/v1" },
  webhook: {
    scheme: { type: "hmac", header: "x-todoist-hmac-sha256", algorithm: "sha256", encoding: "base64" },
    event: { path: "event_name" },
    routing: ["user_id"],
    deliveryId: { header: "x-todoist-delivery-id" },
    occurredAt: ["triggered_at"],
  },
  triggers: [
    {
      name: "item_added",
      displayName: "Task added",
      description: "A task was added.",
      providerEvent: "item:added",
      samplePayload: envelope("item:added", "2026-01-01T10:33:39.000000Z", task),
    },
    {
      name: "item_completed",
      displayName: "Task completed",
      description: "A task was completed.",
      providerEvent: "item:completed",
      samplePayload: envelope("item:completed", "2026-01-04T16:00:00.000000Z", { ...task, checked: true, completed_at: "2026-01-04T16:00:00.000000Z" }),
    },
    {
      name: "item_updated",
      displayName: "Task updated",
      description: "A task changed (content, due date, priority…).",
      providerEvent: "item:updated",
      samplePayload: envelope("item:updated", "2026-01-02T09:00:00.000000Z", { ...task, priority: 4 }),
    },
    {
      name: "note_added",
      displayName: "Comment added",
      description: "A comment was added to a task.",
      providerEvent: "note:added",
      samplePayload: envelope("note:added", "2026-01-02T11:00:00.000000Z", {
        content: "Ordered from the usual CA.",
        file_attachment: null,
        id: "6X7rfFVPjhvv84XG",
        is_deleted: false,
        item: task,
        item_id: task.id,
        posted_at: "2026-01-02T11:00:00.000000Z",
        posted_uid: userId,
        reactions: null,
        uids_to_notify: null,
      }),
    },
  ],
});
