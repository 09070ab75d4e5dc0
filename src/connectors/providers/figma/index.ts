/**
 * Figma: OAuth 2.0 (HTTP Basic at api.figma.com/v1/oauth/token, PKCE supported, 90-day access
 * tokens with refresh tokens). Webhooks V2 are not signed: each delivery carries the webhook's
 * `passcode` in the JSON body, compared in constant time with the configured secret, then removed:
 * it is neither stored nor forwarded (the samples below are the data as forwarded, without it).
 * Events are routed by the user who triggered them (FILE_UPDATE names no user and is not offered).
 *
 * Switchyard makes the webhooks per connection with the account's token, on the team the connection
 * names (`params[team_id]`; team webhooks can be made by the team's admins): one per listed event
 * type, `POST /v2/webhooks` with `event_type`, `context: "team"`, `context_id`, `endpoint` and the
 * subscription's own `passcode` (the `webhooks:write` scope); looked up with
 * `GET /v2/webhooks/{id}` (`webhooks:read`; a 404 makes it again), deleted with
 * `DELETE /v2/webhooks/{id}`. Figma sends a PING to a new webhook (no trigger: answered, not
 * stored). Every event of the team the webhook sends belongs to the connection.
 */
import { declareConnector } from "../../declaration.ts";
import { figmaPasscode } from "./passcode.ts";

const triggeredBy = { id: "813845097374535682", handle: "Dylan Example" };
const common = {
  file_key: "zH2aGkx3h9t8jt5Z14ldMF",
  file_name: "Mockup library",
  protocol_version: "2",
  retries: 0,
  triggered_by: triggeredBy,
  webhook_id: "22",
};

export default declareConnector({
  name: "figma",
  displayName: "Figma",
  category: "design",
  description: "Comments, new versions, deletions and library publishes on Figma files.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1e1e1e"/>' +
    '<path d="M9.5 4.5h2.5v5H9.5a2.5 2.5 0 0 1 0-5z" fill="#f24e1e"/><path d="M12 4.5h2.5a2.5 2.5 0 0 1 0 5H12z" fill="#ff7262"/>' +
    '<path d="M9.5 9.5H12v5H9.5a2.5 2.5 0 0 1 0-5z" fill="#a259ff"/><circle cx="14.5" cy="12" r="2.5" fill="#1abcfe"/>' +
    '<path d="M9.5 14.5H12V17a2.5 2.5 0 1 1-2.5-2.5z" fill="#0acf83"/></svg>',
  docs: [
    "https://developers.figma.com/docs/rest-api/oauth/",
    "https://developers.figma.com/docs/rest-api/scopes/",
    "https://developers.figma.com/docs/rest-api/users-endpoints/",
    "https://developers.figma.com/docs/rest-api/webhooks/",
    "https://developers.figma.com/docs/rest-api/webhooks-events/",
    "https://developers.figma.com/docs/rest-api/webhooks-endpoints/",
    "https://developers.figma.com/docs/rest-api/webhooks-types/",
  ],
  oauth: {
    authorizeUrl: "https://www.figma.com/oauth",
    tokenUrl: "https://api.figma.com/v1/oauth/token",
    // webhooks:write and webhooks:read: the team webhooks Switchyard adds, looks up and removes.
    scopes: ["current_user:read", "file_content:read", "file_comments:read", "webhooks:write", "webhooks:read"],
    scopeDescriptions: {
      "current_user:read": "Read your name, email and profile image",
      "file_content:read": "Read the contents of your files",
      "file_comments:read": "Read the comments on your files",
      "webhooks:write": "Add and remove webhooks (Switchyard adds them on the team it watches for you and removes them when you disconnect)",
      "webhooks:read": "Read the webhooks you added (Switchyard checks that its own are still there)",
    },
    scopeSeparator: ",",
    pkce: true,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  params: [
    {
      name: "team_id",
      description: "The id of the Figma team to watch (the number after /team/ in the team page's URL); the user must be an admin of the team",
      pattern: "^[0-9]{1,30}$",
      example: "1234567890123456789",
      in: "path",
    },
  ],
  identity: {
    path: "/me",
    idPath: "id",
    displayNamePath: "handle",
    metadata: { email: "email" },
  },
  api: { baseUrl: "https://api.figma.com/v1" },
  webhook: {
    scheme: { own: figmaPasscode, params: { path: "passcode" } },
    event: { path: "event_type" },
    routing: ["triggered_by.id"],
    occurredAt: ["timestamp"],
  },
  // One team webhook per listed event type (a webhook has one event_type). Webhooks V2 do not
  // expire: looked up every 6 hours. Their API is /v2, beside the /v1 API base.
  subscription: {
    resources: [
      { resource: "team/{team_id}/FILE_COMMENT", triggers: { file_comment: ["FILE_COMMENT"] } },
      { resource: "team/{team_id}/FILE_VERSION_UPDATE", triggers: { file_version_update: ["FILE_VERSION_UPDATE"] } },
      { resource: "team/{team_id}/FILE_DELETE", triggers: { file_delete: ["FILE_DELETE"] } },
      { resource: "team/{team_id}/LIBRARY_PUBLISH", triggers: { library_publish: ["LIBRARY_PUBLISH"] } },
    ],
    base: "../v2",
    create: {
      method: "POST",
      path: "/webhooks",
      body: { event_type: "{events}", context: "team", context_id: "{team_id}", endpoint: "{subscriptionUrl}", passcode: "{secret}", description: "Switchyard" },
    },
    check: { method: "GET", path: "/webhooks/{providerId}", everySeconds: 6 * 60 * 60 },
    delete: { method: "DELETE", path: "/webhooks/{providerId}" },
    answer: { idPath: "id" },
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "generated",
    webhook: { keep: "all" },
  },
  triggers: [
    {
      name: "file_comment",
      displayName: "Comment posted",
      description: "Someone commented on a file.",
      providerEvent: "FILE_COMMENT",
      samplePayload: {
        ...common,
        comment: [{ text: "Can we try the darker header here?" }],
        comment_id: "32",
        created_at: "2026-01-01T12:00:00Z",
        event_type: "FILE_COMMENT",
        mentions: [],
        timestamp: "2026-01-01T12:00:00Z",
      },
    },
    {
      name: "file_version_update",
      displayName: "Version saved",
      description: "A named version was saved in a file's history.",
      providerEvent: "FILE_VERSION_UPDATE",
      samplePayload: {
        ...common,
        created_at: "2026-01-01T15:00:00Z",
        description: "Header and navigation ready for review",
        event_type: "FILE_VERSION_UPDATE",
        label: "Review 1",
        timestamp: "2026-01-01T15:00:00Z",
        version_id: "3017651264",
      },
    },
    {
      name: "file_delete",
      displayName: "File deleted",
      description: "A file was deleted.",
      providerEvent: "FILE_DELETE",
      samplePayload: { ...common, event_type: "FILE_DELETE", timestamp: "2026-01-04T08:00:00Z" },
    },
    {
      name: "library_publish",
      displayName: "Library published",
      description: "A library file was published.",
      providerEvent: "LIBRARY_PUBLISH",
      samplePayload: {
        ...common,
        created_components: [{ key: "d0a6e9d2b0c8c4b3a2f1e0d9c8b7a6f5e4d3c2b1", name: "Button/Primary" }],
        created_styles: [],
        created_variables: [],
        deleted_components: [],
        deleted_styles: [],
        deleted_variables: [],
        description: "New primary button",
        event_type: "LIBRARY_PUBLISH",
        modified_components: [],
        modified_styles: [{ key: "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0", name: "Color/Brand" }],
        modified_variables: [],
        timestamp: "2026-01-02T10:00:00Z",
      },
    },
  ],
});
