/**
 * GitLab (gitlab.com; self-managed instances override the URLs): OAuth 2.0 with PKCE and 2-hour
 * access tokens with refresh tokens. Switchyard adds a project webhook per connection with the
 * account's token on the project the connection names (`params[project_id]`; the `api` scope and
 * at least the Maintainer role on it): `POST /projects/{id}/hooks` with the subscription's own
 * `token`, looked up with `GET /projects/{id}/hooks/{hook_id}` (a 404 makes it again), deleted
 * with `DELETE /projects/{id}/hooks/{hook_id}`. GitLab sends that token verbatim in
 * `X-Gitlab-Token` (it does not sign the body); every event of the project belongs to the connection.
 */
import { declareConnector } from "../../declaration.ts";

const user = {
  id: 1,
  name: "Administrator",
  username: "root",
  avatar_url: "https://www.gravatar.com/avatar/e64c7d89f26bd1972efa854d13d7dd61?s=80&d=identicon",
  email: "admin@example.com",
};
const project = {
  id: 1,
  name: "Gitlab Test",
  description: "Aut reprehenderit ut est.",
  web_url: "https://gitlab.example.com/gitlabhq/gitlab-test",
  avatar_url: null,
  git_ssh_url: "git@gitlab.example.com:gitlabhq/gitlab-test.git",
  git_http_url: "https://gitlab.example.com/gitlabhq/gitlab-test.git",
  namespace: "GitlabHQ",
  visibility_level: 20,
  path_with_namespace: "gitlabhq/gitlab-test",
  default_branch: "master",
};
const repository = {
  name: "Gitlab Test",
  url: "https://gitlab.example.com/gitlabhq/gitlab-test.git",
  description: "Aut reprehenderit ut est.",
  homepage: "https://gitlab.example.com/gitlabhq/gitlab-test",
};
const issue = {
  id: 301,
  iid: 23,
  title: "New API: create/update/delete file",
  description: "Create new API for manipulations with repository",
  state: "opened",
  action: "open",
  author_id: 1,
  assignee_ids: [51],
  project_id: 1,
  created_at: "2026-01-01 10:00:00 UTC",
  updated_at: "2026-01-01 10:00:00 UTC",
  closed_at: null,
  url: "https://gitlab.example.com/gitlabhq/gitlab-test/-/issues/23",
  labels: [{ id: 206, title: "API", color: "#ffffff", project_id: 1, type: "ProjectLabel" }],
};
const mergeRequest = {
  id: 99,
  iid: 1,
  title: "MS-Viewport",
  description: "",
  state: "opened",
  action: "open",
  source_branch: "ms-viewport",
  target_branch: "master",
  source_project_id: 14,
  target_project_id: 14,
  author_id: 51,
  merge_status: "unchecked",
  draft: false,
  created_at: "2026-01-01 12:00:00 UTC",
  updated_at: "2026-01-01 12:00:00 UTC",
  url: "https://gitlab.example.com/gitlabhq/gitlab-test/-/merge_requests/1",
  last_commit: {
    id: "da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
    message: "fixed readme",
    timestamp: "2026-01-01T11:50:00+00:00",
    url: "https://gitlab.example.com/gitlabhq/gitlab-test/-/commit/da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
    author: { name: "GitLab dev user", email: "gitlabdev@dv6700.(none)" },
  },
};

export default declareConnector({
  name: "gitlab",
  displayName: "GitLab",
  category: "code",
  description: "Pushes, issues, merge requests and pipelines in GitLab projects.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#fc6d26"/>' +
    '<path d="M12 19 4.5 13.2 6.5 5.5l2.3 6.2h6.4l2.3-6.2 2 7.7z" fill="#fff"/></svg>',
  docs: [
    "https://docs.gitlab.com/api/oauth2/",
    "https://docs.gitlab.com/integration/oauth_provider/",
    "https://docs.gitlab.com/api/users/#get-the-current-user",
    "https://docs.gitlab.com/user/project/integrations/webhooks/",
    "https://docs.gitlab.com/user/project/integrations/webhook_events/",
    "https://docs.gitlab.com/api/project_webhooks/",
    "https://docs.gitlab.com/integration/oauth_provider/#view-all-authorized-applications",
  ],
  oauth: {
    authorizeUrl: "https://gitlab.com/oauth/authorize",
    tokenUrl: "https://gitlab.com/oauth/token",
    // Managing a project's webhooks takes the `api` scope (docs.gitlab.com/api/project_webhooks/).
    scopes: ["read_user", "api"],
    scopeDescriptions: {
      read_user: "Read your GitLab profile (your user id, username and name)",
      api: "Read and write your projects through the API (Switchyard adds and removes the project webhook that tells it about changes)",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_post",
    refresh: true,
    // docs.gitlab.com/api/oauth2/#revoke-a-token: the token as the form field `token`, the client's id
    // and secret in the body; 200 with an empty JSON object.
    revocation: { url: "https://gitlab.com/oauth/revoke", method: "POST", tokenParam: "token", body: "form", clientAuth: "client_secret_post", token: "refresh" },
  },
  params: [
    {
      name: "project_id",
      description: "The numeric id of the GitLab project to watch (Settings → General); the user needs at least the Maintainer role on it",
      pattern: "^[0-9]{1,12}$",
      example: "278964",
      in: "path",
    },
  ],
  identity: {
    path: "/api/v4/user",
    idPath: "id",
    displayNamePath: "username",
    metadata: { name: "name", webUrl: "web_url" },
  },
  // The proxy base: @gitbeaker/rest: `host` https://gitlab.com, it adds `/api/v4/` (https://github.com/jdalrymple/gitbeaker).
  api: { baseUrl: "https://gitlab.com" },
  webhook: {
    scheme: { type: "token", header: "x-gitlab-token" },
    // object_kind is in every payload; issues and merge requests add object_attributes.action.
    event: { path: "object_kind", actionPath: "object_attributes.action" },
    routing: ["user.id", "user_id"],
    deliveryId: { header: "x-gitlab-event-uuid" },
    occurredAt: ["object_attributes.updated_at", "object_attributes.created_at", "commits[].timestamp"],
  },
  // One project webhook per connection; its flags are the listed triggers' events. Project hooks
  // do not expire: looked up every 6 hours, and made again when GitLab no longer has it.
  subscription: {
    resources: [
      {
        resource: "projects/{project_id}",
        triggers: {
          push: ["push_events"],
          tag_push: ["tag_push_events"],
          issue_opened: ["issues_events"],
          issue_closed: ["issues_events"],
          merge_request_opened: ["merge_requests_events"],
          merge_request_merged: ["merge_requests_events"],
          pipeline: ["pipeline_events"],
        },
      },
    ],
    create: {
      method: "POST",
      path: "/api/v4/projects/{project_id}/hooks",
      body: {
        url: "{subscriptionUrl}",
        token: "{secret}",
        push_events: "{events:includes:push_events}",
        tag_push_events: "{events:includes:tag_push_events}",
        issues_events: "{events:includes:issues_events}",
        merge_requests_events: "{events:includes:merge_requests_events}",
        pipeline_events: "{events:includes:pipeline_events}",
        enable_ssl_verification: true,
      },
    },
    check: { method: "GET", path: "/api/v4/projects/{project_id}/hooks/{providerId}", everySeconds: 6 * 60 * 60 },
    delete: { method: "DELETE", path: "/api/v4/projects/{project_id}/hooks/{providerId}" },
    answer: { idPath: "id" },
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "generated",
    webhook: { keep: "all" },
  },
  triggers: [
    {
      name: "push",
      displayName: "Push",
      description: "Commits were pushed to a branch.",
      providerEvent: "push",
      samplePayload: {
        object_kind: "push",
        event_name: "push",
        before: "95790bf891e76fee5e1747ab589903a6a1f80f22",
        after: "da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
        ref: "refs/heads/master",
        ref_protected: true,
        checkout_sha: "da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
        user_id: 1,
        user_name: "Administrator",
        user_username: "root",
        user_email: "admin@example.com",
        user_avatar: user.avatar_url,
        project_id: 1,
        project,
        repository,
        commits: [
          {
            id: "da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
            message: "fixed readme",
            title: "fixed readme",
            timestamp: "2026-01-01T11:50:00+00:00",
            url: "https://gitlab.example.com/gitlabhq/gitlab-test/-/commit/da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
            author: { name: "GitLab dev user", email: "gitlabdev@dv6700.(none)" },
            added: ["CHANGELOG"],
            modified: ["app/controller/application.rb"],
            removed: [],
          },
        ],
        total_commits_count: 1,
      },
    },
    {
      name: "tag_push",
      displayName: "Tag pushed",
      description: "A tag was created or deleted.",
      providerEvent: "tag_push",
      samplePayload: {
        object_kind: "tag_push",
        event_name: "tag_push",
        before: "0000000000000000000000000000000000000000",
        after: "82b3d5ae55f7080f1e6022629cdb57bfae7cccc7",
        ref: "refs/tags/v1.0.0",
        ref_protected: true,
        checkout_sha: "82b3d5ae55f7080f1e6022629cdb57bfae7cccc7",
        user_id: 1,
        user_name: "Administrator",
        user_username: "root",
        user_avatar: user.avatar_url,
        project_id: 1,
        project,
        repository,
        commits: [],
        total_commits_count: 0,
      },
    },
    {
      name: "issue_opened",
      displayName: "Issue opened",
      description: "An issue was opened in a project.",
      providerEvent: "issue.open",
      samplePayload: { object_kind: "issue", event_type: "issue", user, project, object_attributes: issue, repository, labels: issue.labels, changes: {} },
    },
    {
      name: "issue_closed",
      displayName: "Issue closed",
      description: "An issue was closed.",
      providerEvent: "issue.close",
      samplePayload: {
        object_kind: "issue",
        event_type: "issue",
        user,
        project,
        object_attributes: { ...issue, state: "closed", action: "close", updated_at: "2026-01-02 09:30:00 UTC", closed_at: "2026-01-02 09:30:00 UTC" },
        repository,
        labels: issue.labels,
        changes: { state_id: { previous: 1, current: 2 } },
      },
    },
    {
      name: "merge_request_opened",
      displayName: "Merge request opened",
      description: "A merge request was opened.",
      providerEvent: "merge_request.open",
      samplePayload: { object_kind: "merge_request", event_type: "merge_request", user, project, object_attributes: mergeRequest, repository, labels: [], changes: {} },
    },
    {
      name: "merge_request_merged",
      displayName: "Merge request merged",
      description: "A merge request was merged.",
      providerEvent: "merge_request.merge",
      samplePayload: {
        object_kind: "merge_request",
        event_type: "merge_request",
        user,
        project,
        object_attributes: { ...mergeRequest, state: "merged", action: "merge", merge_status: "can_be_merged", updated_at: "2026-01-02 10:00:00 UTC" },
        repository,
        labels: [],
        changes: { state_id: { previous: 1, current: 3 } },
      },
    },
    {
      name: "pipeline",
      displayName: "Pipeline status changed",
      description: "A pipeline's status changed (created, running, succeeded, failed…).",
      providerEvent: "pipeline",
      samplePayload: {
        object_kind: "pipeline",
        object_attributes: {
          id: 31,
          iid: 3,
          name: "Pipeline for branch: master",
          ref: "master",
          tag: false,
          sha: "bcbb5ec396a2c0f828686f14fac9b80b780504f2",
          status: "success",
          detailed_status: "passed",
          stages: ["build", "test", "deploy"],
          created_at: "2026-01-01 12:00:00 UTC",
          finished_at: "2026-01-01 12:06:00 UTC",
          duration: 360,
          url: "https://gitlab.example.com/gitlabhq/gitlab-test/-/pipelines/31",
        },
        user,
        project,
        commit: {
          id: "bcbb5ec396a2c0f828686f14fac9b80b780504f2",
          message: "test",
          timestamp: "2026-01-01T11:59:00+00:00",
          url: "https://gitlab.example.com/gitlabhq/gitlab-test/-/commit/bcbb5ec396a2c0f828686f14fac9b80b780504f2",
          author: { name: "User", email: "user@gitlab.com" },
        },
        builds: [],
      },
    },
  ],
});
