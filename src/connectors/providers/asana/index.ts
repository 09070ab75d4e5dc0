/**
 * Asana: OAuth 2.0 with PKCE and OpenID scopes for the identity. Task and comment triggers come from
 * a webhook Switchyard establishes per connection on the project its `project` param names
 * (`POST /webhooks` with the account's token). While that call is in flight Asana POSTs the
 * subscription's URL once with `X-Hook-Secret`, which is echoed back and kept sealed as that
 * webhook's own secret; every delivery is then signed `X-Hook-Signature: <hex HMAC-SHA256 of the
 * body>` with it and batches events as `{"events":[…]}`, each forwarded as one event.
 * Connections without a `project` get no webhook.
 */
import { declareConnector } from "../../declaration.ts";

const user = { gid: "1201234567890", resource_type: "user", name: "Ada Example" };
const project = { gid: "1209876543210", resource_type: "project", name: "Launch plan" };
const task = { gid: "1205555555555", resource_type: "task", resource_subtype: "default_task" };
const item = (action: string, resource: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  user,
  created_at: "2026-01-01T10:00:00.000Z",
  action,
  resource,
  parent: action === "added" || action === "removed" ? project : null,
  ...extra,
});

export default declareConnector({
  name: "asana",
  displayName: "Asana",
  category: "project_management",
  description: "Connect Asana accounts to work with their workspaces, projects and tasks.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#f06a6a"/>' +
    '<circle cx="12" cy="8" r="3" fill="#fff"/><circle cx="7.5" cy="15" r="3" fill="#fff"/><circle cx="16.5" cy="15" r="3" fill="#fff"/></svg>',
  docs: [
    "https://developers.asana.com/docs/oauth",
    "https://developers.asana.com/docs/openid-connect",
    "https://developers.asana.com/reference/getuser",
    "https://developers.asana.com/docs/webhooks-guide",
    "https://developers.asana.com/reference/createwebhook",
    "https://developers.asana.com/reference/deletewebhook",
    "https://developers.asana.com/docs/oauth-scopes",
  ],
  params: [
    {
      name: "project",
      description: "the gid of the Asana project whose tasks and comments are forwarded",
      pattern: "^[0-9]{1,32}$",
      example: "1209876543210",
      in: "path",
      optional: true,
    },
  ],
  oauth: {
    authorizeUrl: "https://app.asana.com/-/oauth_authorize",
    tokenUrl: "https://app.asana.com/-/oauth_token",
    scopes: ["openid", "email", "profile", "webhooks:write", "webhooks:delete"],
    scopeDescriptions: {
      openid: "Confirm your Asana identity",
      email: "Read your email address",
      profile: "Read your name and profile photo",
      "webhooks:write": "Set up the webhook that tells Switchyard about changes in your project",
      "webhooks:delete": "Remove that webhook when you disconnect",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_post",
    refresh: true,
    // developers.asana.com/docs/oauth ("Token deauthorization endpoint"): the refresh token as the
    // form field `token`, the client's id and secret in the body; the refresh token and every
    // access token made from it are deauthorized (an access token is refused here).
    revocation: { url: "https://app.asana.com/-/oauth_revoke", method: "POST", tokenParam: "token", body: "form", clientAuth: "client_secret_post", token: "refresh" },
  },
  identity: {
    path: "/users/me",
    idPath: "data.gid",
    displayNamePath: "data.name",
    metadata: { email: "data.email" },
  },
  api: { baseUrl: "https://app.asana.com/api/1.0", placeholders: { project: "project" } },
  webhook: {
    // Only for the subscription's own URL: Asana signs with the secret its handshake handed over.
    scheme: { type: "hmac", header: "x-hook-signature", algorithm: "sha256", encoding: "hex" },
    batch: { path: "events" },
    event: { path: "resource.resource_type", actionPath: "action" },
    // Who acted; the subscription's events are its account's whoever that is (keep: "all").
    routing: ["user.gid"],
    occurredAt: ["created_at"],
  },
  subscription: {
    resources: [
      {
        resource: "",
        triggers: { task_created: ["task.added"], task_changed: ["task.changed"], task_deleted: ["task.deleted"], story_added: ["story.added"] },
      },
    ],
    create: {
      method: "POST",
      path: "/webhooks",
      // Filters narrow what Asana sends; unmatched events would be dropped here anyway.
      body: {
        data: {
          resource: "{project}",
          target: "{subscriptionUrl}",
          filters: [
            { resource_type: "task", action: "added" },
            { resource_type: "task", action: "changed" },
            { resource_type: "task", action: "deleted" },
            { resource_type: "story", action: "added" },
          ],
        },
      },
    },
    delete: { method: "DELETE", path: "/webhooks/{providerId}" },
    answer: { idPath: "data.gid" },
    // Asana webhooks do not expire; the lifetime is only what a re-creation would ask for.
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "handshake",
    onlyWithParam: "project",
    webhook: { secretHandshake: { header: "x-hook-secret" }, keep: "all" },
  },
  triggers: [
    {
      name: "task_created",
      displayName: "Task added to the project",
      description: "A task was created in (or added to) the connection's project: one Asana event (the task's compact record, who, when).",
      providerEvent: "task.added",
      samplePayload: item("added", task),
    },
    {
      name: "task_changed",
      displayName: "Task changed",
      description: "A field of a task in the project changed (`change` names it).",
      providerEvent: "task.changed",
      samplePayload: item("changed", task, { change: { field: "completed", action: "changed" } }),
    },
    {
      name: "task_deleted",
      displayName: "Task deleted",
      description: "A task of the project was deleted.",
      providerEvent: "task.deleted",
      samplePayload: item("deleted", task),
    },
    {
      name: "story_added",
      displayName: "Comment or story added",
      description: "A story (a comment, or a change Asana records on a task) was added to a task of the project.",
      providerEvent: "story.added",
      samplePayload: item("added", { gid: "1207777777777", resource_type: "story", resource_subtype: "comment_added" }, { parent: task }),
    },
  ],
});
