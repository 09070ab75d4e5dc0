/**
 * GitHub: OAuth app user authorization and repository/organization webhooks; the user's own stars,
 * which no webhook reports (a `star` event is the starred repository's), are polled.
 * Facts: see `docs` (authorization, token answers, /user, webhook signatures and headers, starring).
 */
import { declareConnector } from "../../declaration.ts";
import { shapeIssueCommentEvent, shapeIssueEvent, shapePullRequestEvent } from "./shapes.ts";
import { githubEventTriggers } from "./events.generated.ts";

// Shared pieces of the sample payloads; each sample is exactly what parseGitHubWebhook forwards.
const octocat = { id: 583231, login: "octocat", type: "User", htmlUrl: "https://github.com/octocat" };
const repository = {
  id: 1296269,
  name: "Hello-World",
  fullName: "octocat/Hello-World",
  private: false,
  htmlUrl: "https://github.com/octocat/Hello-World",
  owner: octocat,
};
const openIssue = {
  id: 1347,
  number: 42,
  title: "Found a bug",
  body: "The build fails on Node 20.",
  state: "open",
  htmlUrl: "https://github.com/octocat/Hello-World/issues/42",
  labels: ["bug"],
  user: octocat,
  createdAt: "2026-01-01T10:00:00Z",
  updatedAt: "2026-01-01T10:00:00Z",
  closedAt: null,
};

export default declareConnector({
  name: "github",
  displayName: "GitHub",
  category: "issue_tracker",
  description: "Issues, pull requests, pushes and every other repository and organization event from GitHub.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#24292f"/>' +
    '<circle cx="7" cy="7" r="2.2" fill="#fff"/><circle cx="7" cy="17" r="2.2" fill="#fff"/>' +
    '<circle cx="17" cy="10" r="2.2" fill="#fff"/>' +
    '<path d="M7 9.2v5.6M17 12.2c0 2.8-4 2.3-8.4 3.6" stroke="#fff" stroke-width="1.6" fill="none"/></svg>',
  docs: [
    "https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps",
    "https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps",
    "https://docs.github.com/en/rest/users/users#get-the-authenticated-user",
    "https://docs.github.com/en/rest/apps/oauth-applications#delete-an-app-authorization",
    "https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries",
    "https://docs.github.com/en/webhooks/webhook-events-and-payloads",
    "https://docs.github.com/en/rest/activity/starring#list-repositories-starred-by-the-authenticated-user",
  ],
  oauth: {
    authorizeUrl: "https://github.com/login/oauth/authorize",
    tokenUrl: "https://github.com/login/oauth/access_token",
    // Identity only: the operator registers the repository/organization webhook with the secret.
    scopes: ["read:user"],
    scopeDescriptions: { "read:user": "Read your GitHub profile (your user id, login and name)" },
    scopeSeparator: " ",
    pkce: true, // supported (S256 only) since July 2025
    clientAuth: "client_secret_post",
    // Errors come as HTTP 200 `{error, error_description}` (read as errors by default); expiring
    // user tokens (GitHub Apps) add expires_in/refresh_token.
    refresh: true,
    // "Delete an app authorization": DELETE /applications/{client_id}/grant with HTTP Basic
    // client_id:client_secret and a JSON body {"access_token"}; the user's grant and all its tokens go.
    revocation: { url: "https://api.github.com/applications/{clientId}/grant", method: "DELETE", tokenParam: "access_token", body: "json", clientAuth: "client_secret_basic" },
  },
  identity: {
    path: "/user",
    idPath: "id",
    displayNamePath: "login",
    metadata: { login: "login", name: "name", htmlUrl: "html_url" },
  },
  // Bearer on api.github.com (the default); a rate-limited answer without retry-after says when
  // the limit resets in x-ratelimit-reset, UTC epoch seconds
  // (docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api).
  api: { baseUrl: "https://api.github.com", rateLimitHeaders: [{ header: "x-ratelimit-reset", value: "epoch_seconds" }] },
  webhook: {
    scheme: { type: "hmac", header: "x-hub-signature-256", algorithm: "sha256", encoding: "hex", prefix: "sha256=" },
    event: { header: "x-github-event", actionPath: "action" },
    // GitHub user ids, matched to the id read from GET /user at connect time.
    routing: ["sender.id", "repository.owner.id"],
    // The delivery GUID is kept on redelivery.
    deliveryId: { header: "x-github-delivery" },
    // No timestamp is signed: a body replayed under a new delivery id is refused for 3 days, the
    // period GitHub lets you redeliver from (docs.github.com/en/webhooks/testing-and-troubleshooting-webhooks/redelivering-webhooks).
    replayWindowSeconds: 3 * 86_400,
  },
  triggers: [
    {
      name: "issue_opened",
      providerEvent: "issues.opened",
      occurredAt: ["issue.created_at"],
      shape: shapeIssueEvent,
      displayName: "Issue opened",
      description: "An issue was opened in a repository the account owns or acted on.",
      samplePayload: { action: "opened", repository, sender: octocat, issue: openIssue },
    },
    {
      name: "issue_closed",
      providerEvent: "issues.closed",
      occurredAt: ["issue.closed_at"],
      shape: shapeIssueEvent,
      displayName: "Issue closed",
      description: "An issue was closed.",
      samplePayload: {
        action: "closed",
        repository,
        sender: octocat,
        issue: { ...openIssue, state: "closed", updatedAt: "2026-01-02T09:30:00Z", closedAt: "2026-01-02T09:30:00Z" },
      },
    },
    {
      name: "issue_comment_created",
      providerEvent: "issue_comment.created",
      occurredAt: ["comment.created_at"],
      shape: shapeIssueCommentEvent,
      displayName: "Issue comment created",
      description: "A comment was posted on an issue or pull request.",
      samplePayload: {
        action: "created",
        repository,
        sender: octocat,
        issue: openIssue,
        comment: {
          id: 1362934389,
          body: "Reproduced on main, looking into it.",
          htmlUrl: "https://github.com/octocat/Hello-World/issues/42#issuecomment-1362934389",
          user: octocat,
          createdAt: "2026-01-01T11:15:00Z",
        },
      },
    },
    {
      name: "pull_request_opened",
      providerEvent: "pull_request.opened",
      occurredAt: ["pull_request.created_at"],
      shape: shapePullRequestEvent,
      displayName: "Pull request opened",
      description: "A pull request was opened.",
      samplePayload: {
        action: "opened",
        repository,
        sender: octocat,
        pullRequest: {
          id: 279147437,
          number: 43,
          title: "Fix the build on Node 20",
          body: "Closes #42.",
          state: "open",
          draft: false,
          htmlUrl: "https://github.com/octocat/Hello-World/pull/43",
          user: octocat,
          head: { ref: "fix-node-20", sha: "6dcb09b5b57875f334f61aebed695e2e4193db5e" },
          base: { ref: "main", sha: "9049f1265b7d61be4a8904a9a27120d2064dab3b" },
          createdAt: "2026-01-01T12:00:00Z",
        },
      },
    },
    // One trigger per other event/action GitHub documents, generated from @octokit/webhooks.
    ...githubEventTriggers,
    {
      name: "repository_starred",
      displayName: "Repository starred by the user",
      description: "The connected user starred a repository (read from their starred list on a schedule).",
      providerEvent: "GET /user/starred",
      // One item of the list with the star+json media type: the star's time and the repository as GitHub answers it.
      samplePayload: {
        starred_at: "2026-01-01T10:00:00Z",
        repo: { id: 1296269, name: "Hello-World", full_name: "octocat/Hello-World", private: false, html_url: "https://github.com/octocat/Hello-World" },
      },
    },
  ],
  polling: {
    triggers: {
      // Newest stars first (sort=created, direction=desc); `starred_at` only with the star+json media type.
      repository_starred: {
        request: {
          path: "/user/starred",
          query: { sort: "created", direction: "desc", per_page: "100" },
          headers: { accept: "application/vnd.github.star+json" },
        },
        id: "repo.id",
        version: "starred_at",
        occurredAt: ["starred_at"],
        cursor: { from: "version" },
      },
    },
  },
});
