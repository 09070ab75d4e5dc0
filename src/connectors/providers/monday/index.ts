/**
 * monday.com: OAuth 2.0 for monday apps (tokens do not expire; no refresh) and the GraphQL API at
 * `POST /v2` for the identity and the webhooks.
 *
 * Per connection Switchyard makes, with the account's token, one webhook per listed event type on
 * the board the connection names (`params[board_id]`): the GraphQL mutation
 * `create_webhook(board_id, url, event)` answering `{data: {create_webhook: {id board_id}}}`, and
 * `delete_webhook(id)` on disconnect (the `webhooks:write` scope). GraphQL answers 200 even when a
 * mutation fails: an answer carrying `errors` is a failure. monday checks the URL with an unsigned
 * POST `{"challenge": "…"}` answered with the same JSON. Webhooks made with an app's OAuth token
 * carry `Authorization: <JWT>` (no "Bearer "), HS256-signed with the app's Signing Secret: the
 * connector's webhook secret. The body is `{event: {type, boardId, pulseId, userId, …}}`. monday's
 * webhooks do not expire: every 6 hours the board's webhooks are listed with the `webhooks(board_id)`
 * query (`{data: {webhooks: [{id event board_id config}]}}`), and one no longer listed (someone
 * removed it from the board's integrations) is made again.
 */
import { declareConnector } from "../../declaration.ts";
import { mondayChallenge } from "./verification.ts";

// The board and item of the samples, as monday's webhook payloads name them.
const where = { app: "monday", boardId: 1234567890, pulseId: 9876543210, userId: 55512345, originalTriggerUuid: null, triggerUuid: "6f1c2b0e9d8a7c6b5a4f3e2d1c0b9a88" };
const signature = { type: "jwt_hs256", header: "authorization", bearer: false } as const;

export default declareConnector({
  name: "monday",
  displayName: "monday.com",
  category: "project_management",
  description: "Items created, changed and deleted, and updates posted, on a monday.com board.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#181b34"/>' +
    '<path d="M5.5 16 9 9.5M10.5 16 14 9.5" stroke="#ff3d57" stroke-width="2.6" stroke-linecap="round"/>' +
    '<circle cx="17.5" cy="15.5" r="1.7" fill="#00ca72"/></svg>',
  docs: [
    "https://developer.monday.com/apps/docs/oauth",
    "https://developer.monday.com/api-reference/reference/me",
    "https://developer.monday.com/api-reference/reference/webhooks",
    "https://developer.monday.com/api-reference/docs/webhooks",
    "https://developer.monday.com/api-reference/changelog/webhooks-improvements",
    "https://developer.monday.com/apps/docs/integration-authorization",
    "https://developer.monday.com/apps/docs/authorization-header",
    "https://support.monday.com/hc/en-us/articles/360003540679-Webhook-integration",
  ],
  oauth: {
    authorizeUrl: "https://auth.monday.com/oauth2/authorize",
    tokenUrl: "https://auth.monday.com/oauth2/token",
    scopes: ["me:read", "boards:read", "webhooks:write"],
    scopeDescriptions: {
      "me:read": "Read your profile",
      "boards:read": "Read your boards and their items",
      "webhooks:write": "Add and remove webhooks (Switchyard adds them on the board it watches for you and removes them when you disconnect)",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  params: [
    {
      name: "board_id",
      description: "The id of the monday.com board to watch (the number after /boards/ in the board's URL)",
      pattern: "^[0-9]{1,20}$",
      example: "1234567890",
      in: "path",
    },
  ],
  identity: {
    path: "/v2",
    method: "POST",
    body: { query: "query { me { id name email account { id name } } }" },
    headers: { "content-type": "application/json" },
    idPath: "data.me.id",
    displayNamePath: "data.me.name",
    metadata: { email: "data.me.email", accountId: "data.me.account.id" },
  },
  api: { baseUrl: "https://api.monday.com" },
  handshakes: [mondayChallenge],
  webhook: {
    scheme: signature,
    event: { path: "event.type" },
    routing: ["event.userId"],
    deliveryId: { paths: ["event.triggerUuid"] },
    occurredAt: ["event.triggerTime"],
  },
  // One webhook per listed event type: a monday webhook has one event. Every event on the
  // connection's board belongs to the connection, whoever acted.
  subscription: {
    resources: [
      { resource: "boards/{board_id}/create_item", triggers: { item_created: ["create_item"] } },
      { resource: "boards/{board_id}/change_column_value", triggers: { column_value_changed: ["change_column_value"] } },
      { resource: "boards/{board_id}/create_update", triggers: { update_created: ["create_update"] } },
      { resource: "boards/{board_id}/item_deleted", triggers: { item_deleted: ["item_deleted"] } },
    ],
    create: {
      method: "POST",
      path: "/v2",
      body: {
        query: "mutation ($board: ID!, $url: String!, $event: WebhookEventType!) { create_webhook (board_id: $board, url: $url, event: $event) { id board_id } }",
        variables: { board: "{board_id}", url: "{subscriptionUrl}", event: "{events}" },
      },
      errorsPath: "errors",
    },
    delete: {
      method: "POST",
      path: "/v2",
      body: { query: "mutation ($id: ID!) { delete_webhook (id: $id) { id board_id } }", variables: { id: "{providerId}" } },
      errorsPath: "errors",
    },
    // monday documents no read of one webhook; the board's are listed. An answer carrying GraphQL
    // `errors` (a board gone, a token revoked) is a failure, never a reason to make a second webhook.
    check: {
      method: "POST",
      path: "/v2",
      body: { query: "query ($board: ID!) { webhooks (board_id: $board) { id event board_id config } }", variables: { board: "{board_id}" } },
      errorsPath: "errors",
      everySeconds: 6 * 60 * 60,
      list: { itemsPath: "data.webhooks", idPath: "id" },
    },
    answer: { idPath: "data.create_webhook.id" },
    // monday's webhooks do not expire; the lifetime is only what a re-creation would ask for.
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "none",
    webhook: { key: "webhook_secret", keep: "all" },
  },
  triggers: [
    {
      name: "item_created",
      displayName: "Item created",
      description: "An item was added to the watched board (the `create_item` webhook; `event.type` is `create_pulse`).",
      providerEvent: "create_pulse",
      samplePayload: {
        event: { ...where, type: "create_pulse", triggerTime: "2026-01-01T10:00:00.000Z", subscriptionId: 73759690, pulseName: "Write the release notes", groupId: "topics", groupName: "This week", groupColor: "#579bfc", isTopGroup: true, columnValues: {} },
      },
    },
    {
      name: "column_value_changed",
      displayName: "Column value changed",
      description: "A column of an item on the watched board changed (`change_column_value`; `event.type` is `update_column_value`, with the new and previous value).",
      providerEvent: "update_column_value",
      samplePayload: {
        event: {
          ...where,
          type: "update_column_value",
          triggerTime: "2026-01-01T11:00:00.000Z",
          subscriptionId: 73759691,
          pulseName: "Write the release notes",
          groupId: "topics",
          columnId: "status",
          columnType: "color",
          columnTitle: "Status",
          value: { label: { index: 1, text: "Done", style: { color: "#00c875", border: "#00b461", var_name: "green-shade" }, is_done: true }, post_id: null },
          previousValue: { label: { index: 0, text: "Working on it", style: { color: "#fdab3d", border: "#e99729", var_name: "orange" }, is_done: false }, post_id: null },
          changedAt: 1767265200.123,
          isTopGroup: true,
        },
      },
    },
    {
      name: "update_created",
      displayName: "Update posted",
      description: "Someone posted an update on an item of the watched board (`create_update`).",
      providerEvent: "create_update",
      samplePayload: {
        event: { ...where, type: "create_update", triggerTime: "2026-01-01T12:00:00.000Z", subscriptionId: 73759692, updateId: 3344556677, body: "<p>Draft is in the doc.</p>", textBody: "Draft is in the doc.", replyId: null },
      },
    },
    {
      name: "item_deleted",
      displayName: "Item deleted",
      description: "An item was deleted from the watched board (`item_deleted`; `event.type` is `delete_pulse`).",
      providerEvent: "delete_pulse",
      samplePayload: {
        event: { ...where, type: "delete_pulse", triggerTime: "2026-01-01T13:00:00.000Z", subscriptionId: 73759693, itemId: 9876543210, itemName: "Write the release notes" },
      },
    },
  ],
});
