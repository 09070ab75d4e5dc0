/**
 * Linear: OAuth 2.0 (PKCE supported; comma-separated scopes) and the GraphQL API for the identity.
 * Webhooks sign `Linear-Signature` = hex HMAC-SHA256 of the body; the signed body carries
 * `webhookTimestamp` (ms), which Linear asks receivers to hold to one minute. Webhooks belong to the
 * workspace, so the account's id is its organization's id (`organizationId` in every payload).
 */
import { declareConnector } from "../../declaration.ts";
import { linearSignature } from "./signature.ts";

const organizationId = "8b4c0a8e-5a7e-4b31-9f2e-1a9d5f0c3e77";
const actor = { id: "4e0c8b1d-7f2a-4c3e-9b5d-6a1f0e2d3c4b", type: "user", name: "Alice Example", email: "alice@example.com", url: "https://linear.app/acme/profiles/alice" };
const team = { id: "72b2a2dc-6f4f-4423-9d34-24b5bd10634a", key: "ENG", name: "Engineering" };
const issue = {
  id: "2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9",
  identifier: "ENG-128",
  number: 128,
  title: "Retry webhooks with exponential backoff",
  description: "Deliveries are retried immediately today.",
  priority: 2,
  priorityLabel: "High",
  estimate: null,
  url: "https://linear.app/acme/issue/ENG-128/retry-webhooks-with-exponential-backoff",
  teamId: team.id,
  team,
  stateId: "a4f3f1c2-9f4e-4a9b-8d7c-1e2f3a4b5c6d",
  state: { id: "a4f3f1c2-9f4e-4a9b-8d7c-1e2f3a4b5c6d", name: "Todo", type: "unstarted", color: "#e2e2e2" },
  creatorId: actor.id,
  assigneeId: null,
  labelIds: [],
  labels: [],
  createdAt: "2026-01-01T10:00:00.000Z",
  updatedAt: "2026-01-01T10:00:00.000Z",
};
const envelope = (type: string, action: string, createdAt: string, data: Record<string, unknown>, url: string, extra: Record<string, unknown> = {}) => ({
  action,
  actor,
  createdAt,
  data,
  url,
  type,
  organizationId,
  webhookTimestamp: Date.parse(createdAt) + 120,
  webhookId: "000042e3-d123-4980-b49f-8e140eef9329",
  ...extra,
});

export default declareConnector({
  name: "linear",
  displayName: "Linear",
  category: "issue_tracker",
  description: "Issues, comments and projects created or changed in a Linear workspace.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#5e6ad2"/>' +
    '<path d="M5.5 13.5 10.5 18.5M5.3 10.8l7.9 7.9M6.3 8.1l9.6 9.6M8.3 6.3l9.4 9.4M11 5.3l7.7 7.7" stroke="#fff" stroke-width="1.4" stroke-linecap="round"/></svg>',
  docs: [
    "https://linear.app/developers/oauth-2-0-authentication",
    "https://linear.app/developers/graphql",
    "https://linear.app/developers/webhooks",
  ],
  oauth: {
    authorizeUrl: "https://linear.app/oauth/authorize",
    tokenUrl: "https://api.linear.app/oauth/token",
    scopes: ["read"],
    scopeDescriptions: { read: "Read your Linear workspace: issues, projects, comments and teams" },
    scopeSeparator: ",",
    pkce: true,
    clientAuth: "client_secret_post",
    refresh: true,
    // linear.app/developers/oauth-2-0-authentication ("Revoke an access token"): the access token as
    // the bearer, or the refresh token as the form field `refresh_token` — which still works once the
    // access token has expired; no client authentication. 200; 400 when already revoked.
    revocation: { url: "https://api.linear.app/oauth/revoke", method: "POST", tokenParam: "refresh_token", body: "form", clientAuth: "none", token: "refresh" },
  },
  identity: {
    path: "/graphql",
    method: "POST",
    body: { query: "query { viewer { id name email organization { id name urlKey } } }" },
    headers: { "content-type": "application/json" },
    idPath: "data.viewer.organization.id",
    displayNamePath: "data.viewer.organization.name",
    metadata: { userId: "data.viewer.id", userName: "data.viewer.name", email: "data.viewer.email", urlKey: "data.viewer.organization.urlKey" },
  },
  api: { baseUrl: "https://api.linear.app" },
  webhook: {
    scheme: { own: linearSignature, params: { header: "linear-signature", timestampPath: "webhookTimestamp", timestampUnit: "ms", toleranceSeconds: 60 } },
    event: { path: "type", actionPath: "action" },
    routing: ["organizationId"],
    deliveryId: { header: "linear-delivery" },
    occurredAt: ["createdAt"],
  },
  triggers: [
    {
      name: "issue_created",
      displayName: "Issue created",
      description: "An issue was created.",
      providerEvent: "Issue.create",
      samplePayload: envelope("Issue", "create", "2026-01-01T10:00:00.000Z", issue, issue.url),
    },
    {
      name: "issue_updated",
      displayName: "Issue updated",
      description: "An issue changed; `updatedFrom` holds the previous values of what changed.",
      providerEvent: "Issue.update",
      samplePayload: envelope(
        "Issue",
        "update",
        "2026-01-02T09:30:00.000Z",
        { ...issue, stateId: "d3b5c1a2-0e9f-4d8c-7b6a-5f4e3d2c1b0a", state: { id: "d3b5c1a2-0e9f-4d8c-7b6a-5f4e3d2c1b0a", name: "In Progress", type: "started", color: "#f2c94c" }, updatedAt: "2026-01-02T09:30:00.000Z" },
        issue.url,
        { updatedFrom: { stateId: issue.stateId, updatedAt: issue.updatedAt } },
      ),
    },
    {
      name: "issue_removed",
      displayName: "Issue removed",
      description: "An issue was deleted (moved to the trash).",
      providerEvent: "Issue.remove",
      samplePayload: envelope("Issue", "remove", "2026-01-03T08:00:00.000Z", { ...issue, trashed: true, updatedAt: "2026-01-03T08:00:00.000Z" }, issue.url),
    },
    {
      name: "comment_created",
      displayName: "Comment created",
      description: "A comment was posted on an issue.",
      providerEvent: "Comment.create",
      samplePayload: envelope(
        "Comment",
        "create",
        "2026-01-01T11:00:00.000Z",
        {
          id: "b8a7f6e5-d4c3-4b2a-9f8e-7d6c5b4a3f2e",
          body: "Backoff should cap at ten hours, like the delivery worker.",
          issueId: issue.id,
          issue: { id: issue.id, identifier: issue.identifier, title: issue.title, url: issue.url, teamId: team.id, team },
          userId: actor.id,
          user: { id: actor.id, name: actor.name, email: actor.email },
          createdAt: "2026-01-01T11:00:00.000Z",
          updatedAt: "2026-01-01T11:00:00.000Z",
        },
        `${issue.url}#comment-b8a7f6e5`,
      ),
    },
    {
      name: "project_created",
      displayName: "Project created",
      description: "A project was created.",
      providerEvent: "Project.create",
      samplePayload: envelope(
        "Project",
        "create",
        "2026-01-01T09:00:00.000Z",
        {
          id: "5c4b3a2f-1e0d-4c9b-8a7f-6e5d4c3b2a1f",
          name: "Connector catalog",
          description: "Thirty connectors and their triggers",
          state: "planned",
          startDate: "2026-01-05",
          targetDate: "2026-02-27",
          teamIds: [team.id],
          leadId: actor.id,
          url: "https://linear.app/acme/project/connector-catalog-5c4b3a2f",
          createdAt: "2026-01-01T09:00:00.000Z",
          updatedAt: "2026-01-01T09:00:00.000Z",
        },
        "https://linear.app/acme/project/connector-catalog-5c4b3a2f",
      ),
    },
  ],
});
