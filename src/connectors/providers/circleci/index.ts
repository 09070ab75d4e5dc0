/**
 * CircleCI API v2 at https://circleci.com/api/v2: a personal API token (User Settings → Personal
 * API Tokens) sent in the `Circle-Token` header. Outbound webhooks belong to one project, so a
 * connection is one project: the end user gives the token and the project's slug in its three
 * parts (`gh/acme/api`: VCS, organization, project), checked with `GET /project/{slug}`, whose `id`
 * (a UUID) is the connection's id and the webhook's scope. Per connection Switchyard makes the
 * project's webhook (`POST /webhook` with `url`, `events`, `scope` and its own `signing-secret`;
 * deleted with `DELETE /webhook/{id}`). CircleCI signs each delivery `circleci-signature:
 * v1=<hex HMAC-SHA256 of the raw body>` with that secret; the event is the body's `type`
 * (also `Circleci-Event-Type`), and `id` is the same on a redelivery.
 */
import { declareConnector } from "../../declaration.ts";

const project = { id: "2b2d4ab4-2b6a-4ffd-9a35-8ecf3a3d9e81", name: "api", slug: "gh/acme/api" };
const organization = { id: "f22b6566-597d-46d5-ba74-99ef5bb3d85c", name: "acme" };
const pipeline = {
  id: "1285fe1d-d3a6-44fc-8886-8979558254c4",
  number: 130,
  created_at: "2026-01-01T12:00:00.000Z",
  trigger: { type: "webhook" },
  vcs: {
    provider_name: "github",
    origin_repository_url: "https://github.com/acme/api",
    target_repository_url: "https://github.com/acme/api",
    revision: "1dc6aa69429bff4806ad6afe58d3d8f57e25973e",
    commit: { subject: "Add a health check", body: "", author: { name: "Author Name", email: "author@example.com" }, authored_at: "2026-01-01T11:59:00Z", committer: { name: "Committer Name", email: "committer@example.com" }, committed_at: "2026-01-01T11:59:00Z" },
    branch: "main",
  },
};
const workflow = {
  id: "fda08377-fe7e-46b1-8992-3a7aaecac9c3",
  name: "build-test-deploy",
  created_at: "2026-01-01T12:00:01.000Z",
  stopped_at: "2026-01-01T12:04:31.000Z",
  url: "https://app.circleci.com/pipelines/github/acme/api/130/workflows/fda08377-fe7e-46b1-8992-3a7aaecac9c3",
  status: "success",
};

export default declareConnector({
  name: "circleci",
  displayName: "CircleCI",
  category: "code",
  description: "Workflows and jobs that finished in a CircleCI project.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#343434"/>' +
    '<circle cx="12" cy="12" r="2.4" fill="#fff"/><path d="M7 9.2A5.8 5.8 0 1 1 7 14.8" fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round"/></svg>',
  docs: [
    "https://circleci.com/docs/api/v2/",
    "https://circleci.com/docs/managing-api-tokens/",
    "https://circleci.com/docs/outbound-webhooks",
    "https://circleci.com/docs/webhooks-reference/",
  ],
  authMode: "API_KEY",
  credentials: {
    fields: [
      {
        name: "api_token",
        label: "Personal API token",
        help: "Create one in CircleCI under User Settings → Personal API Tokens.",
        secret: true,
        example: "CCIPAT_example0123456789abcdef",
      },
      {
        name: "vcs",
        label: "VCS",
        help: "The first part of the project slug: gh (GitHub OAuth), bb (Bitbucket) or circleci (GitHub App, GitLab).",
        secret: false,
        pattern: "^(gh|github|bb|bitbucket|circleci)$",
        example: "gh",
      },
      {
        name: "organization",
        label: "Organization",
        help: "The second part of the project slug (Project Settings → Overview): acme for gh/acme/api.",
        secret: false,
        pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$",
        example: "acme",
      },
      {
        name: "project",
        label: "Project",
        help: "The last part of the project slug: api for gh/acme/api.",
        secret: false,
        pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$",
        example: "api",
      },
    ],
    whereToFind: "https://app.circleci.com/settings/user/tokens",
    key: "api_token",
    test: { method: "GET", path: "/project/{vcs}/{organization}/{project}", idPath: "id", displayNamePath: "slug" },
  },
  api: { baseUrl: "https://circleci.com/api/v2", auth: { style: "header", header: "circle-token" } },
  webhook: {
    scheme: { type: "hmac", header: "circleci-signature", algorithm: "sha256", encoding: "hex", prefix: "v1=", signedContent: "{body}" },
    event: { path: "type" },
    routing: ["project.id"],
    deliveryId: { paths: ["id"] },
    occurredAt: ["happened_at"],
  },
  subscription: {
    resources: [{ resource: "", triggers: { workflow_completed: ["workflow-completed"], job_completed: ["job-completed"] } }],
    create: {
      method: "POST",
      path: "/webhook",
      body: { name: "Switchyard", events: "{events[]}", url: "{subscriptionUrl}", "verify-tls": true, "signing-secret": "{secret}", scope: { id: "{externalId}", type: "project" } },
    },
    delete: { method: "DELETE", path: "/webhook/{providerId}" },
    answer: { idPath: "id" },
    // CircleCI webhooks do not expire; the lifetime is only what a re-creation would ask for.
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "generated",
    webhook: {},
  },
  triggers: [
    {
      name: "workflow_completed",
      displayName: "Workflow completed",
      description: "A workflow of the project reached a terminal state (success, failed, error, canceled or unauthorized).",
      providerEvent: "workflow-completed",
      samplePayload: {
        type: "workflow-completed",
        id: "3888f21b-eaa7-38e3-8f3d-75a63bba8895",
        happened_at: "2026-01-01T12:04:31.000Z",
        webhook: { id: "cf8c4fdd-0587-4da1-b4ca-4846e9640af9", name: "Switchyard" },
        project,
        organization,
        workflow,
        pipeline,
      },
    },
    {
      name: "job_completed",
      displayName: "Job completed",
      description: "A job of the project reached a terminal state.",
      providerEvent: "job-completed",
      samplePayload: {
        type: "job-completed",
        id: "8bd26246-5d3c-3e5b-9e1d-4a9c1d1b7a2f",
        happened_at: "2026-01-01T12:03:40.000Z",
        webhook: { id: "cf8c4fdd-0587-4da1-b4ca-4846e9640af9", name: "Switchyard" },
        project,
        organization,
        workflow: { ...workflow, stopped_at: null, status: "running" },
        pipeline,
        job: { id: "8bd26246-5d3c-3e5b-9e1d-4a9c1d1b7a2f", name: "test", number: 4182, status: "success", started_at: "2026-01-01T12:01:02.000Z", stopped_at: "2026-01-01T12:03:40.000Z" },
      },
    },
  ],
});
