import type { ConnectorDefinition } from "../types.ts";
import { readStandardTokenResponse } from "../tokenResponse.ts";
import { parseGitHubWebhook, verifyGitHubWebhook } from "./events.ts";

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

export const github: ConnectorDefinition = {
  name: "github",
  displayName: "GitHub",
  category: "issue_tracker",
  description: "Issues, comments and pull requests from GitHub repositories.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#24292f"/>' +
    '<circle cx="7" cy="7" r="2.2" fill="#fff"/><circle cx="7" cy="17" r="2.2" fill="#fff"/>' +
    '<circle cx="17" cy="10" r="2.2" fill="#fff"/>' +
    '<path d="M7 9.2v5.6M17 12.2c0 2.8-4 2.3-8.4 3.6" stroke="#fff" stroke-width="1.6" fill="none"/></svg>',
  endpoints: {
    authorizeUrl: "https://github.com/login/oauth/authorize",
    tokenUrl: "https://github.com/login/oauth/access_token",
    apiUrl: "https://api.github.com",
  },
  oauth: {
    // Identity only: the operator registers the repository/organization webhook with the secret.
    scopes: ["read:user"],
    scopeDescriptions: { "read:user": "Read your GitHub profile (your user id, login and name)" },
    scopeSeparator: " ",
    pkce: true, // supported (S256 only) since July 2025
    clientAuth: "client_secret_post",
    // GitHub answers errors with HTTP 200 `{error, error_description}`; expiring user tokens
    // (GitHub Apps) add expires_in/refresh_token. `scope` comes back comma-separated.
    readTokenResponse: readStandardTokenResponse,
  },
  async readIdentity({ fetchJson }) {
    const me = (await fetchJson("/user")) as { id?: unknown; login?: unknown; name?: unknown; html_url?: unknown };
    if (typeof me.id !== "number" && typeof me.id !== "string") throw new Error("GitHub /user answered without an id");
    return {
      externalId: String(me.id),
      displayName: typeof me.login === "string" ? me.login : undefined,
      metadata: {
        login: me.login,
        ...(typeof me.name === "string" ? { name: me.name } : {}),
        ...(typeof me.html_url === "string" ? { htmlUrl: me.html_url } : {}),
      },
    };
  },
  triggers: [
    {
      name: "issue_opened",
      displayName: "Issue opened",
      description: "An issue was opened in a repository the account owns or acted on.",
      samplePayload: { action: "opened", repository, sender: octocat, issue: openIssue },
    },
    {
      name: "issue_closed",
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
  ],
  inbound: {
    delivery: "webhook",
    verify: (req, secret) => verifyGitHubWebhook(req, secret),
    parse: parseGitHubWebhook,
  },
};
