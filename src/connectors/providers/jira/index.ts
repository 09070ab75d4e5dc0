/**
 * Jira Cloud: Atlassian OAuth 2.0 (3LO). Events come two ways:
 * - a dynamic webhook Switchyard registers per connection on its site with the account's token
 *   (`POST /rest/api/3/webhook`, refreshed with `PUT /rest/api/3/webhook/refresh` before Jira's
 *   30-day expiry, `DELETE /rest/api/3/webhook`), sent to the subscription's own URL with
 *   `Authorization: Bearer <JWT>` signed HS256 with the OAuth app's client secret;
 * - admin webhooks (System → WebHooks) registered with a secret, signed
 *   `X-Hub-Signature: sha256=<hex HMAC-SHA256>` with the deployment's webhook secret.
 */
import { declareConnector } from "../../declaration.ts";
import { atlassianIdentity, atlassianOAuth } from "./atlassian.ts";
import { shapeIssueCreated, shapeIssueUpdated } from "./shapes.ts";

const alice = { accountId: "5b10ac8d82e05b22cc7d4ef5", displayName: "Alice Example" };
const sampleIssue = {
  id: "10001",
  key: "OPS-17",
  self: "https://example.atlassian.net/rest/api/2/issue/10001",
  url: "https://example.atlassian.net/browse/OPS-17",
  summary: "Checkout page times out",
  status: "To Do",
  issueType: "Bug",
  priority: "High",
  project: { id: "10000", key: "OPS", name: "Operations" },
  assignee: null,
  reporter: alice,
  created: "2026-01-01T10:00:00.000+0000",
  updated: "2026-01-01T10:00:00.000+0000",
};

export default declareConnector({
  name: "jira",
  displayName: "Jira",
  category: "issue_tracker",
  description: "Issues created and updated in Jira Cloud sites.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1868db"/>' +
    '<path d="M12 4.5 19.5 12 12 19.5 4.5 12z" fill="none" stroke="#fff" stroke-width="1.8"/>' +
    '<path d="M12 9 15 12 12 15 9 12z" fill="#fff"/></svg>',
  docs: [
    "https://developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps/",
    "https://developer.atlassian.com/cloud/jira/platform/webhooks/",
    "https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-myself/",
    "https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-webhooks/",
    "https://developer.atlassian.com/cloud/jira/platform/webhooks/#webhooks-authentication-for-oauth-2-0-apps",
    "https://developer.atlassian.com/cloud/jira/platform/scopes-for-oauth-2-3LO-and-forge-apps/",
  ],
  oauth: atlassianOAuth({
    "read:jira-work": "Read Jira projects and issues, with their comments and attachments",
    "read:jira-user": "Read user information in Jira (names and account ids)",
    "manage:jira-webhook": "Register and remove the webhooks that tell Switchyard about issue changes",
  }),
  identity: atlassianIdentity,
  // 3LO calls go through the gateway with the site's cloud id, the `id` accessible-resources gave
  // (developer.atlassian.com/cloud/oauth/getting-started/making-calls-to-api/): the first site,
  // unless the connection's params name another cloudId. Rate-limited answers carry Retry-After.
  api: { baseUrl: "https://api.atlassian.com", connectionBaseUrl: "{baseUrl}/ex/jira/{cloudId}", placeholders: { cloudId: "sites[].cloudId" } },
  webhook: {
    scheme: { type: "hmac", header: "x-hub-signature", algorithm: "sha256", encoding: "hex", prefix: "sha256=" },
    event: { path: "webhookEvent" },
    // The actor, matched to the account_id read from GET /me.
    routing: ["user.accountId"],
    // Unchanged across Jira's retries.
    deliveryId: { header: "x-atlassian-webhook-identifier" },
    occurredAt: ["timestamp"],
  },
  // One dynamic webhook per connection on its site (the proxy's base: /ex/jira/{cloudId}). Jira's
  // registration answers 200 with per-webhook errors instead of an id when it refuses one.
  subscription: {
    resources: [{ resource: "", triggers: { issue_created: ["jira:issue_created"], issue_updated: ["jira:issue_updated"] } }],
    create: {
      method: "POST",
      path: "/rest/api/3/webhook",
      // Only =, !=, IN and NOT IN on a few fields are allowed: "every project" said that way.
      body: { url: "{subscriptionUrl}", webhooks: [{ events: "{events[]}", jqlFilter: "project != SWITCHYARD-NONE" }] },
    },
    renew: { method: "PUT", path: "/rest/api/3/webhook/refresh", body: { webhookIds: ["{providerId:number}"] } },
    delete: { method: "DELETE", path: "/rest/api/3/webhook", body: { webhookIds: ["{providerId:number}"] } },
    // The registration answers no expiry (30 days from now); the refresh answers `expirationDate`.
    answer: { idPath: "webhookRegistrationResult[].createdWebhookId", expiresPath: "expirationDate", expiresFormat: "iso" },
    lifetimeSeconds: 30 * 24 * 60 * 60,
    secret: "none",
    webhook: { scheme: { type: "jwt_hs256", header: "authorization" }, key: "client_secret" },
  },
  triggers: [
    {
      name: "issue_created",
      providerEvent: "jira:issue_created",
      shape: shapeIssueCreated,
      displayName: "Issue created",
      description: "An issue was created by the connected user.",
      samplePayload: {
        webhookEvent: "jira:issue_created",
        issueEventTypeName: "issue_created",
        user: alice,
        issue: sampleIssue,
      },
    },
    {
      name: "issue_updated",
      providerEvent: "jira:issue_updated",
      shape: shapeIssueUpdated,
      displayName: "Issue updated",
      description: "An issue was updated by the connected user (fields, status, assignee…).",
      samplePayload: {
        webhookEvent: "jira:issue_updated",
        issueEventTypeName: "issue_generic",
        user: alice,
        issue: { ...sampleIssue, status: "In Progress", updated: "2026-01-01T11:00:00.000+0000" },
        changes: [{ field: "status", from: "10000", fromString: "To Do", to: "3", toString: "In Progress" }],
      },
    },
  ],
});
