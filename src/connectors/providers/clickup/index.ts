/**
 * ClickUp: OAuth 2.0 code flow (no scopes, access tokens that do not expire). Webhooks are tied to
 * the user whose token created them, so Switchyard creates one per connection on the Workspace the
 * connection names (`params[team_id]`): `POST /team/{team_id}/webhook` with `endpoint` and
 * `events`; the answer holds `webhook.id` and `webhook.secret`, the secret this webhook signs with
 * (`X-Signature` = hex HMAC-SHA256 of the body); deleted with `DELETE /webhook/{webhook_id}`.
 * Every event of the Workspace the webhook sends belongs to the connection.
 */
import { declareConnector } from "../../declaration.ts";

const user = { id: 183, username: "John Doe", email: "johndoe@example.com", color: "#7b68ee", initials: "JD", profilePicture: null };

export default declareConnector({
  name: "clickup",
  displayName: "ClickUp",
  category: "project_management",
  description: "Tasks created, updated, moved between statuses and commented on in ClickUp workspaces.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#7b68ee"/>' +
    '<path d="M6 15.5c1.8 2 3.8 3 6 3s4.2-1 6-3M7 11.5l5-4.5 5 4.5" stroke="#fff" stroke-width="2.2" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developer.clickup.com/docs/authentication",
    "https://developer.clickup.com/reference/getauthorizeduser",
    "https://developer.clickup.com/docs/webhooks",
    "https://developer.clickup.com/docs/webhooksignature",
    "https://developer.clickup.com/docs/webhooktaskpayloads",
    "https://developer.clickup.com/reference/createwebhook",
    "https://developer.clickup.com/reference/deletewebhook",
    "https://developer.clickup.com/reference/webhooks-1",
    "https://developer.clickup.com/docs/webhookhealth",
    "https://developer.clickup.com/reference/getauthorizedteams",
  ],
  oauth: {
    authorizeUrl: "https://app.clickup.com/api",
    tokenUrl: "https://api.clickup.com/api/v2/oauth/token",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  params: [
    {
      name: "team_id",
      description: "The id of the ClickUp Workspace to watch (the number after app.clickup.com/ in its URL; GET /team lists them)",
      pattern: "^[0-9]{1,20}$",
      example: "9011234567",
      in: "path",
    },
  ],
  identity: {
    path: "/user",
    idPath: "user.id",
    displayNamePath: "user.username",
    metadata: { email: "user.email" },
  },
  // "Include the token in the Authorization header": the token itself, no Bearer
  // (developer.clickup.com/docs/authentication).
  api: { baseUrl: "https://api.clickup.com/api/v2", auth: { style: "header", header: "authorization", prefix: "" } },
  webhook: {
    scheme: { type: "hmac", header: "x-signature", algorithm: "sha256", encoding: "hex" },
    event: { path: "event" },
    routing: ["history_items[].user.id"],
    occurredAt: ["history_items[].date"],
  },
  // One webhook per connection on its Workspace, for the listed triggers' events. ClickUp webhooks
  // do not expire and ClickUp documents no way to read one webhook back: nothing to renew or check.
  subscription: {
    resources: [
      {
        resource: "team/{team_id}",
        triggers: { task_created: ["taskCreated"], task_status_updated: ["taskStatusUpdated"], task_updated: ["taskUpdated"], task_comment_posted: ["taskCommentPosted"] },
      },
    ],
    create: { method: "POST", path: "/team/{team_id}/webhook", body: { endpoint: "{subscriptionUrl}", events: "{events[]}" } },
    delete: { method: "DELETE", path: "/webhook/{providerId}" },
    // No read of one webhook is documented, but the caller's webhooks on the Workspace are listed;
    // a suspended one gets nothing more until someone sets it active again (webhookhealth), so it
    // counts as gone; a failing one is still sent to and recovers by itself.
    check: {
      method: "GET",
      path: "/team/{team_id}/webhook",
      everySeconds: 6 * 60 * 60,
      list: { itemsPath: "webhooks", idPath: "id", gone: { path: "health.status", values: ["suspended"] } },
    },
    answer: { idPath: "webhook.id", secretPath: "webhook.secret" },
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "answer",
    webhook: { keep: "all" },
  },
  triggers: [
    {
      name: "task_created",
      displayName: "Task created",
      description: "A task was created.",
      providerEvent: "taskCreated",
      samplePayload: {
        event: "taskCreated",
        history_items: [
          {
            id: "2800763136717140857",
            type: 1,
            date: "1767261600000",
            field: "status",
            parent_id: "162641062",
            data: { status_type: "open" },
            source: null,
            user,
            before: { status: null, color: "#000000", type: "removed", orderindex: -1 },
            after: { status: "to do", color: "#f9d900", orderindex: 0, type: "open" },
          },
        ],
        task_id: "1vj37mc",
        webhook_id: "7fa3ec74-69a8-4530-a251-8a13730bd204",
      },
    },
    {
      name: "task_status_updated",
      displayName: "Task status changed",
      description: "A task moved to another status.",
      providerEvent: "taskStatusUpdated",
      samplePayload: {
        event: "taskStatusUpdated",
        history_items: [
          {
            id: "2800787326130437056",
            type: 1,
            date: "1767265200000",
            field: "status",
            parent_id: "162641062",
            data: { status_type: "custom" },
            source: null,
            user,
            before: { status: "to do", color: "#f9d900", orderindex: 0, type: "open" },
            after: { status: "in progress", color: "#7C4DFF", orderindex: 1, type: "custom" },
          },
        ],
        task_id: "1vj37mc",
        webhook_id: "7fa3ec74-69a8-4530-a251-8a13730bd204",
      },
    },
    {
      name: "task_updated",
      displayName: "Task updated",
      description: "A task's fields changed.",
      providerEvent: "taskUpdated",
      samplePayload: {
        event: "taskUpdated",
        history_items: [
          {
            id: "2800789353867281704",
            type: 1,
            date: "1767265800000",
            field: "name",
            parent_id: "162641062",
            data: {},
            source: null,
            user,
            before: "Ship the catalog",
            after: "Ship the connector catalog",
          },
        ],
        task_id: "1vj37mc",
        webhook_id: "7fa3ec74-69a8-4530-a251-8a13730bd204",
      },
    },
    {
      name: "task_comment_posted",
      displayName: "Task comment posted",
      description: "A comment was posted on a task.",
      providerEvent: "taskCommentPosted",
      samplePayload: {
        event: "taskCommentPosted",
        history_items: [
          {
            id: "2800803631413444567",
            type: 1,
            date: "1767266400000",
            field: "comment",
            parent_id: "162641062",
            data: {},
            source: null,
            user,
            before: null,
            after: "8637",
            comment: {
              id: "8637",
              date: "1767266400000",
              parent: "1vj37mc",
              type: 1,
              comment: [{ text: "Ready for review." }],
              text_content: "Ready for review.",
              user,
              reactions: [],
            },
          },
        ],
        task_id: "1vj37mc",
        webhook_id: "7fa3ec74-69a8-4530-a251-8a13730bd204",
      },
    },
  ],
});
