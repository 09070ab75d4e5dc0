/**
 * Box: OAuth 2.0 (60-minute access tokens, single-use refresh tokens). V2 webhooks sign
 * `BOX-SIGNATURE-PRIMARY` / `-SECONDARY` = base64 HMAC-SHA256 over the body followed by the
 * `BOX-DELIVERY-TIMESTAMP` value, valid for ten minutes, with the app's primary and secondary keys
 * (one pair per app: the connector's webhook secret); the body `id` is stable across retries
 * (BOX-DELIVERY-ID is not). Switchyard makes one V2 webhook per connection, with the account's
 * token, on the folder the connection names (`params[folder_id]`; V2 webhooks cannot watch the
 * root folder "0"): `POST /webhooks` with `target {id, type: "folder"}`, `address` and `triggers`
 * (the `manage_webhook` scope); looked up with `GET /webhooks/{id}` (a 404 makes it again) and
 * deleted with `DELETE /webhooks/{id}`. Box allows one webhook per item, app and user, so a change
 * of the listed triggers deletes the old webhook before making the new one. Webhooks cascade to
 * subfolders; every event of the folder belongs to the connection.
 */
import { declareConnector } from "../../declaration.ts";
import { boxSignature } from "./signature.ts";

const user = { type: "user", id: "20417854", name: "Aaron Levie", login: "ceo@example.com" };
const file = {
  id: "1634398574321",
  type: "file",
  etag: "0",
  sequence_id: "0",
  sha1: "85136c79cbf9fe36bb9d05d0639c70c265c18d37",
  name: "Q1 roadmap.pdf",
  description: "",
  size: 629644,
  path_collection: { total_count: 2, entries: [{ type: "folder", id: "0", name: "All Files" }, { type: "folder", id: "254789045123", name: "Planning" }] },
  created_at: "2026-01-01T12:00:00-08:00",
  modified_at: "2026-01-01T12:00:00-08:00",
  created_by: user,
  modified_by: user,
  owned_by: user,
  parent: { type: "folder", id: "254789045123", name: "Planning" },
  item_status: "active",
};
const event = (id: string, trigger: string, createdAt: string, source: Record<string, unknown>) => ({
  type: "webhook_event",
  id,
  created_at: createdAt,
  trigger,
  webhook: { id: "161307459", type: "webhook" },
  created_by: user,
  source,
  additional_info: [],
});

export default declareConnector({
  name: "box",
  displayName: "Box",
  category: "files",
  description: "Files uploaded, moved, deleted and commented on in Box folders.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0061d5"/>' +
    '<path d="M5 8.5 12 5l7 3.5v7L12 19l-7-3.5z" fill="none" stroke="#fff" stroke-width="1.8" stroke-linejoin="round"/><path d="M5 8.5 12 12l7-3.5M12 12v7" stroke="#fff" stroke-width="1.5"/></svg>',
  docs: [
    "https://developer.box.com/reference/post-oauth2-revoke/",
    "https://developer.box.com/guides/authentication/oauth2/",
    "https://developer.box.com/reference/get-users-me/",
    "https://developer.box.com/guides/webhooks/v2/",
    "https://developer.box.com/guides/webhooks/v2/signatures-v2/",
    "https://developer.box.com/guides/webhooks/triggers/",
    "https://developer.box.com/guides/webhooks/v2/create-v2/",
    "https://developer.box.com/guides/webhooks/v2/limitations-v2/",
    "https://developer.box.com/reference/post-webhooks/",
    "https://developer.box.com/reference/get-webhooks-id/",
    "https://developer.box.com/reference/delete-webhooks-id/",
    "https://developer.box.com/guides/api-calls/permissions-and-errors/scopes/",
  ],
  oauth: {
    authorizeUrl: "https://account.box.com/api/oauth2/authorize",
    tokenUrl: "https://api.box.com/oauth2/token",
    // The app's configured application scopes apply; the scope parameter narrows them: reading, and
    // managing the webhook Switchyard adds on the watched folder ("Manage webhooks" on the app).
    scopes: ["root_readonly", "manage_webhook"],
    scopeDescriptions: {
      root_readonly: "Read all files and folders stored in your Box account",
      manage_webhook: "Add and remove webhooks (Switchyard adds one on the folder it watches for you and removes it when you disconnect)",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
    // POST /oauth2/revoke with client_id, client_secret and the token in the form body; an empty 200.
    revocation: { url: "https://api.box.com/oauth2/revoke", method: "POST", tokenParam: "token", body: "form", clientAuth: "client_secret_post" },
  },
  params: [
    {
      name: "folder_id",
      description: "The id of the Box folder to watch, subfolders included (the number after /folder/ in its URL); not the root folder \"All Files\" (0), which Box webhooks cannot watch",
      pattern: "^[1-9][0-9]{0,19}$",
      example: "254789045123",
      in: "path",
    },
  ],
  identity: {
    path: "/2.0/users/me",
    idPath: "id",
    displayNamePath: "name",
    metadata: { login: "login", enterpriseId: "enterprise.id" },
  },
  // The proxy base: Box's SDKs: base URL https://api.box.com, they add `/2.0/` (https://github.com/box/box-typescript-sdk-gen/blob/main/docs/configuration.md).
  api: { baseUrl: "https://api.box.com" },
  webhook: {
    scheme: { own: boxSignature },
    event: { path: "trigger" },
    routing: ["created_by.id"],
    deliveryId: { paths: ["id"] },
    occurredAt: ["created_at"],
  },
  // One V2 webhook per connection on its folder, for the listed triggers. V2 webhooks do not expire
  // (Box deletes one only when its app, its tokens or its deliveries die): looked up every 6 hours.
  subscription: {
    resources: [
      {
        resource: "folders/{folder_id}",
        triggers: {
          file_uploaded: ["FILE.UPLOADED"],
          file_moved: ["FILE.MOVED"],
          file_trashed: ["FILE.TRASHED"],
          comment_created: ["COMMENT.CREATED"],
          folder_created: ["FOLDER.CREATED"],
        },
      },
    ],
    // One webhook per folder, app and user: a second create for the folder answers 409.
    replace: "delete_first",
    create: {
      method: "POST",
      path: "/2.0/webhooks",
      body: { target: { id: "{folder_id}", type: "folder" }, address: "{subscriptionUrl}", triggers: "{events[]}" },
    },
    check: { method: "GET", path: "/2.0/webhooks/{providerId}", everySeconds: 6 * 60 * 60 },
    delete: { method: "DELETE", path: "/2.0/webhooks/{providerId}" },
    answer: { idPath: "id" },
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "none",
    // Box signs with the app's keys, not per webhook: verified with the connector's webhook secret.
    webhook: { key: "webhook_secret", keep: "all" },
  },
  triggers: [
    {
      name: "file_uploaded",
      displayName: "File uploaded",
      description: "A file was uploaded to a watched folder.",
      providerEvent: "FILE.UPLOADED",
      samplePayload: event("eb0c4e06-751f-442c-86f8-fd5bb404dbec", "FILE.UPLOADED", "2026-01-01T12:00:01-08:00", file),
    },
    {
      name: "file_moved",
      displayName: "File moved",
      description: "A file was moved to another folder.",
      providerEvent: "FILE.MOVED",
      samplePayload: event("4f8d2c1a-9b7e-4e6d-8c5b-3a2f1e0d9c8b", "FILE.MOVED", "2026-01-02T09:00:00-08:00", {
        ...file,
        parent: { type: "folder", id: "254789045999", name: "Archive" },
        modified_at: "2026-01-02T09:00:00-08:00",
      }),
    },
    {
      name: "file_trashed",
      displayName: "File trashed",
      description: "A file was moved to the trash.",
      providerEvent: "FILE.TRASHED",
      samplePayload: event("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "FILE.TRASHED", "2026-01-03T10:00:00-08:00", {
        ...file,
        item_status: "trashed",
        trashed_at: "2026-01-03T10:00:00-08:00",
      }),
    },
    {
      name: "comment_created",
      displayName: "Comment created",
      description: "A comment was added to a file.",
      providerEvent: "COMMENT.CREATED",
      samplePayload: event("7e6d5c4b-3a2f-4e1d-8c9b-0a1f2e3d4c5b", "COMMENT.CREATED", "2026-01-01T13:00:00-08:00", {
        type: "comment",
        id: "191969",
        is_reply_comment: false,
        message: "Please double-check the March numbers.",
        created_by: user,
        created_at: "2026-01-01T13:00:00-08:00",
        modified_at: "2026-01-01T13:00:00-08:00",
        item: { id: file.id, type: "file" },
      }),
    },
    {
      name: "folder_created",
      displayName: "Folder created",
      description: "A folder was created inside a watched folder.",
      providerEvent: "FOLDER.CREATED",
      samplePayload: event("9c8b7a6f-5e4d-4c3b-8a2f-1e0d9c8b7a6f", "FOLDER.CREATED", "2026-01-01T11:00:00-08:00", {
        id: "254789045321",
        type: "folder",
        name: "Q2",
        created_at: "2026-01-01T11:00:00-08:00",
        modified_at: "2026-01-01T11:00:00-08:00",
        created_by: user,
        owned_by: user,
        parent: { type: "folder", id: "254789045123", name: "Planning" },
        item_status: "active",
      }),
    },
  ],
});
