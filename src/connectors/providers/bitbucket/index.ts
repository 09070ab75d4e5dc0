/**
 * Bitbucket Cloud: OAuth 2.0 consumers (HTTP Basic at the token endpoint, 2-hour access tokens with
 * refresh tokens). Switchyard adds a repository webhook per connection with the account's token on
 * the repository the connection names (`params[workspace]`, `params[repo_slug]`; the `webhook`
 * scope): `POST /repositories/{workspace}/{repo_slug}/hooks` with `url`, `events`, `active` and
 * the subscription's own `secret`, looked up with `GET …/hooks/{uid}` (a 404 makes it again),
 * deleted with `DELETE …/hooks/{uid}`. Webhooks with a secret carry
 * `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>`; the event is the `X-Event-Key` header;
 * every event of the repository belongs to the connection.
 */
import { declareConnector } from "../../declaration.ts";

const actor = {
  type: "user",
  uuid: "{d301aafa-d676-4ee0-88be-962be7417567}",
  account_id: "557058:c0b72ad0-1cb5-4018-9cdc-0cde8492c443",
  nickname: "alice",
  display_name: "Alice Example",
  links: { html: { href: "https://bitbucket.org/%7Bd301aafa-d676-4ee0-88be-962be7417567%7D/" } },
};
const repository = {
  type: "repository",
  uuid: "{b7e3a2c4-5f6d-4e8a-9b1c-0d2e3f4a5b6c}",
  name: "switchyard-demo",
  full_name: "alice/switchyard-demo",
  is_private: true,
  scm: "git",
  owner: actor,
  workspace: { type: "workspace", uuid: "{d301aafa-d676-4ee0-88be-962be7417567}", slug: "alice", name: "Alice Example" },
  links: { html: { href: "https://bitbucket.org/alice/switchyard-demo" } },
};
const pullRequest = {
  type: "pullrequest",
  id: 7,
  title: "Add retry backoff",
  description: "Retries now back off exponentially.",
  state: "OPEN",
  author: actor,
  source: { branch: { name: "retry-backoff" }, commit: { hash: "1e2f3a4b5c6d" }, repository },
  destination: { branch: { name: "main" }, commit: { hash: "9a8b7c6d5e4f" }, repository },
  merge_commit: null,
  comment_count: 0,
  task_count: 0,
  close_source_branch: true,
  reviewers: [],
  participants: [],
  created_on: "2026-01-01T12:00:00.000000+00:00",
  updated_on: "2026-01-01T12:00:00.000000+00:00",
  links: { html: { href: "https://bitbucket.org/alice/switchyard-demo/pull-requests/7" } },
};

export default declareConnector({
  name: "bitbucket",
  displayName: "Bitbucket",
  category: "code",
  description: "Pushes, pull requests and comments in Bitbucket Cloud repositories.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0c66e4"/>' +
    '<path d="M4.5 5.5h15l-2.3 13h-10.4z" fill="#fff"/><path d="M10 10h4l-.6 4h-2.8z" fill="#0c66e4"/></svg>',
  docs: [
    "https://developer.atlassian.com/cloud/bitbucket/oauth-2/",
    "https://developer.atlassian.com/cloud/bitbucket/rest/api-group-users/#api-user-get",
    "https://support.atlassian.com/bitbucket-cloud/docs/manage-webhooks/",
    "https://support.atlassian.com/bitbucket-cloud/docs/event-payloads/",
    "https://developer.atlassian.com/cloud/bitbucket/rest/api-group-webhooks/",
    "https://support.atlassian.com/bitbucket-cloud/docs/use-oauth-on-bitbucket-cloud/",
  ],
  oauth: {
    authorizeUrl: "https://bitbucket.org/site/oauth2/authorize",
    tokenUrl: "https://bitbucket.org/site/oauth2/access_token",
    // The consumer's permissions decide what is granted; `account` is what GET /user needs,
    // `webhook` what the repository hooks API needs (developer.atlassian.com/cloud/bitbucket/rest/api-group-webhooks/).
    scopes: ["account", "webhook"],
    scopeDescriptions: {
      account: "Read your Bitbucket account (your id and name)",
      webhook: "Add and remove the repository webhook that tells Switchyard about changes",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  params: [
    {
      name: "workspace",
      description: "The workspace the repository belongs to (its slug or UUID, as in bitbucket.org/<workspace>/<repo_slug>)",
      pattern: "^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$",
      example: "acme",
      in: "path",
    },
    {
      name: "repo_slug",
      description: "The repository's slug (bitbucket.org/<workspace>/<repo_slug>); the user needs admin rights on it",
      pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$",
      example: "switchyard-demo",
      in: "path",
    },
  ],
  identity: {
    path: "/user",
    idPath: "uuid",
    displayNamePath: "display_name",
    metadata: { accountId: "account_id", nickname: "nickname" },
  },
  api: { baseUrl: "https://api.bitbucket.org/2.0" },
  webhook: {
    scheme: { type: "hmac", header: "x-hub-signature", algorithm: "sha256", encoding: "hex", prefix: "sha256=" },
    event: { header: "x-event-key" },
    routing: ["actor.uuid", "repository.owner.uuid"],
    deliveryId: { header: "x-request-uuid" },
    occurredAt: ["push.changes[].commits[].date", "pullrequest.updated_on", "comment.created_on", "issue.created_on"],
  },
  // One repository webhook per connection, for the listed triggers' events. Repository webhooks do
  // not expire: looked up every 6 hours, and made again when Bitbucket no longer has it.
  subscription: {
    resources: [
      {
        resource: "repositories/{workspace}/{repo_slug}",
        triggers: {
          repo_push: ["repo:push"],
          pullrequest_created: ["pullrequest:created"],
          pullrequest_fulfilled: ["pullrequest:fulfilled"],
          pullrequest_comment_created: ["pullrequest:comment_created"],
          issue_created: ["issue:created"],
        },
      },
    ],
    create: {
      method: "POST",
      path: "/repositories/{workspace}/{repo_slug}/hooks",
      body: { description: "Switchyard", url: "{subscriptionUrl}", active: true, events: "{events[]}", secret: "{secret}" },
    },
    check: { method: "GET", path: "/repositories/{workspace}/{repo_slug}/hooks/{providerId}", everySeconds: 6 * 60 * 60 },
    delete: { method: "DELETE", path: "/repositories/{workspace}/{repo_slug}/hooks/{providerId}" },
    // The hook's id is its `uuid` (with braces), which the paths take as its `uid`.
    answer: { idPath: "uuid" },
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "generated",
    webhook: { keep: "all" },
  },
  triggers: [
    {
      name: "repo_push",
      displayName: "Push",
      description: "Commits or tags were pushed to a repository.",
      providerEvent: "repo:push",
      samplePayload: {
        actor,
        repository,
        push: {
          changes: [
            {
              old: { type: "branch", name: "main", target: { type: "commit", hash: "9a8b7c6d5e4f" } },
              new: { type: "branch", name: "main", target: { type: "commit", hash: "1e2f3a4b5c6d" } },
              created: false,
              forced: false,
              closed: false,
              truncated: false,
              commits: [{ type: "commit", hash: "1e2f3a4b5c6d", message: "Add retry backoff\n", date: "2026-01-01T11:58:00+00:00", author: { raw: "Alice Example <alice@example.com>", user: actor } }],
            },
          ],
        },
      },
    },
    {
      name: "pullrequest_created",
      displayName: "Pull request created",
      description: "A pull request was created.",
      providerEvent: "pullrequest:created",
      samplePayload: { actor, repository, pullrequest: pullRequest },
    },
    {
      name: "pullrequest_fulfilled",
      displayName: "Pull request merged",
      description: "A pull request was merged.",
      providerEvent: "pullrequest:fulfilled",
      samplePayload: {
        actor,
        repository,
        pullrequest: { ...pullRequest, state: "MERGED", merge_commit: { hash: "5d6e7f8a9b0c" }, updated_on: "2026-01-02T09:00:00.000000+00:00" },
      },
    },
    {
      name: "pullrequest_comment_created",
      displayName: "Pull request comment created",
      description: "A comment was posted on a pull request.",
      providerEvent: "pullrequest:comment_created",
      samplePayload: {
        actor,
        repository,
        pullrequest: pullRequest,
        comment: {
          type: "pullrequest_comment",
          id: 512345678,
          content: { raw: "Looks good, one nit inline.", markup: "markdown", html: "<p>Looks good, one nit inline.</p>" },
          user: actor,
          created_on: "2026-01-01T13:00:00.000000+00:00",
          updated_on: "2026-01-01T13:00:00.000000+00:00",
          links: { html: { href: "https://bitbucket.org/alice/switchyard-demo/pull-requests/7#comment-512345678" } },
        },
      },
    },
    {
      name: "issue_created",
      displayName: "Issue created",
      description: "An issue was created in a repository's issue tracker.",
      providerEvent: "issue:created",
      samplePayload: {
        actor,
        repository,
        issue: {
          type: "issue",
          id: 12,
          title: "Webhook retries too aggressive",
          content: { raw: "We see three retries within a second.", markup: "markdown" },
          state: "new",
          kind: "bug",
          priority: "major",
          reporter: actor,
          assignee: null,
          created_on: "2026-01-01T10:00:00.000000+00:00",
          updated_on: "2026-01-01T10:00:00.000000+00:00",
          links: { html: { href: "https://bitbucket.org/alice/switchyard-demo/issues/12" } },
        },
      },
    },
  ],
});
