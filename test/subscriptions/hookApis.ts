/**
 * The webhook APIs of the providers whose webhooks never expire and are looked up by id (GitLab,
 * Bitbucket, Box, Figma), as fake routes over a `fakeHooks()` memory. Each provider's own test
 * file tells how its webhooks are made, signed and deleted; remadeWhenGone.test.ts tells, for all
 * of them at once, how they are looked up and made again. Both speak to these same fakes.
 */
import { createHmac, randomUUID } from "node:crypto";
import { jsonReply, type Route } from "../helpers/fakeProviders/oauthServer.ts";
import type { DeclaredIdentity } from "../helpers/fakeProviders/declared.ts";
import { type fakeHooks, hookRoutes } from "./fakeHooks.ts";

type Hooks = ReturnType<typeof fakeHooks>;

/**
 * GitLab project webhooks (docs.gitlab.com/api/project_webhooks/): `POST /projects/:id/hooks` with
 * `url`, `token` and one flag per event kind, `GET`/`DELETE /projects/:id/hooks/:hook_id`.
 */
export const GITLAB_PROJECT = "4242";
export const GITLAB_FLAGS = ["push_events", "tag_push_events", "issues_events", "merge_requests_events", "pipeline_events"];
export const gitlabHookPath = (id: string) => `/api/api/v4/projects/${GITLAB_PROJECT}/hooks/${id}`;

export function gitlabHookApi(gitlab: Hooks): Route<DeclaredIdentity>[] {
  // GitLab answers 404 for a project the token cannot see, and for a hook that is not the project's.
  return hookRoutes(gitlab, {
    methods: ["POST", "GET", "DELETE"],
    pattern: /^\/api\/api\/v4\/projects\/([^/]+)\/hooks(?:\/([^/]+))?$/,
    unauthorized: () => jsonReply(401, { message: "401 Unauthorized" }),
    handle({ method, body, grant, params }) {
      const [project, hookId] = params.slice(0, 2);
      if (project !== GITLAB_PROJECT) return jsonReply(404, { message: "404 Project Not Found" });
      if (method === "POST" && !hookId) {
        if (typeof body.url !== "string" || !body.url) return jsonReply(400, { error: "url is missing" });
        // push_events defaults to true: only what is sent as false is off.
        const hook = gitlab.add(grant.identity.id, { push_events: true, ...body });
        return jsonReply(201, { id: Number(hook.id), url: body.url, project_id: Number(GITLAB_PROJECT), ...Object.fromEntries(GITLAB_FLAGS.map((f) => [f, hook.body[f] ?? false])), created_at: new Date().toISOString() });
      }
      const hook = hookId ? gitlab.hooks.get(hookId) : undefined;
      if (!hook) return jsonReply(404, { message: "404 Not Found" });
      if (method === "GET") return jsonReply(200, { id: Number(hook.id), url: hook.body.url, project_id: Number(GITLAB_PROJECT) });
      if (method === "DELETE") {
        gitlab.hooks.delete(hook.id);
        return { status: 204, body: "" };
      }
      return jsonReply(405, {});
    },
  });
}

/**
 * Bitbucket repository webhooks (developer.atlassian.com/cloud/bitbucket/rest/api-group-webhooks/):
 * `POST /repositories/{workspace}/{repo_slug}/hooks`, answered with a brace-wrapped `uuid`, then
 * `GET`/`DELETE …/hooks/{uid}`.
 */
export const BITBUCKET_WORKSPACE = "acme";
export const BITBUCKET_REPO = "web_site.v2";
export const bitbucketUuidOf = (id: string) => `{${id.padStart(8, "0")}-0000-4000-8000-000000000000}`;
export const bitbucketHookPath = (uuid: string) => `/api/2.0/repositories/${BITBUCKET_WORKSPACE}/${encodeURIComponent(BITBUCKET_REPO)}/hooks/${encodeURIComponent(uuid)}`;

export function bitbucketHookApi(bitbucket: Hooks): Route<DeclaredIdentity>[] {
  return hookRoutes(bitbucket, {
    methods: ["POST", "GET", "DELETE"],
    pattern: /^\/api\/2\.0\/repositories\/([^/]+)\/([^/]+)\/hooks(?:\/([^/]+))?$/,
    unauthorized: () => jsonReply(401, { type: "error", error: { message: "Access token expired or invalid." } }),
    handle({ method, body, grant, params }) {
      const [workspace, slug, uid] = params;
      if (workspace !== BITBUCKET_WORKSPACE || slug !== BITBUCKET_REPO) return jsonReply(404, { type: "error", error: { message: "Repository not found" } });
      if (method === "POST" && !uid) {
        if (typeof body.url !== "string" || !Array.isArray(body.events) || body.events.length === 0) return jsonReply(400, { type: "error", error: { message: "url and events are required" } });
        const hook = bitbucket.add(grant.identity.id, body);
        // The secret is never read back: only whether one is set.
        return jsonReply(201, { type: "webhook_subscription", uuid: bitbucketUuidOf(hook.id), url: body.url, description: body.description, subject_type: "repository", active: body.active, events: body.events, secret_set: Boolean(body.secret), created_at: new Date().toISOString() });
      }
      const hook = bitbucket.live().find((h) => bitbucketUuidOf(h.id) === uid);
      if (!hook) return jsonReply(404, { type: "error", error: { message: "Webhook not found" } });
      if (method === "GET") return jsonReply(200, { type: "webhook_subscription", uuid: uid, url: hook.body.url, events: hook.body.events, active: true, secret_set: true });
      if (method === "DELETE") {
        bitbucket.hooks.delete(hook.id);
        return { status: 204, body: "" };
      }
      return jsonReply(405, {});
    },
  });
}

/**
 * Box V2 webhooks (developer.box.com/reference/post-webhooks/, /get-webhooks-id/,
 * /delete-webhooks-id/): `POST /2.0/webhooks` `{target: {id, type: "folder"}, address, triggers}`,
 * one per item, app and user (a second answers 409), then `GET`/`DELETE /2.0/webhooks/{id}`.
 */
export const BOX_FOLDER = "254789045123";
const boxError = (status: number, code: string, message: string) => jsonReply(status, { type: "error", status, code, message, request_id: randomUUID() });

export function boxHookApi(box: Hooks): Route<DeclaredIdentity>[] {
  return [
    ...hookRoutes(box, {
      methods: ["POST"],
      pattern: "/api/2.0/webhooks",
      unauthorized: () => boxError(401, "unauthorized", "Unauthorized"),
      handle({ body, grant }) {
        const target = body.target ?? {};
        if (!["file", "folder"].includes(target.type) || !target.id || typeof body.address !== "string" || !Array.isArray(body.triggers) || body.triggers.length === 0) {
          return boxError(400, "bad_request", "Bad request");
        }
        if (target.id === "0") return boxError(400, "bad_request", "Webhooks cannot be created on the root folder");
        if (target.id !== BOX_FOLDER) return boxError(404, "not_found", "Not Found");
        // One webhook per item, application and user.
        if (box.live().some((h) => h.owner === grant.identity.id && h.body.target.id === target.id)) return boxError(409, "conflict", "Webhook already exists");
        const hook = box.add(grant.identity.id, body);
        return jsonReply(201, { id: hook.id, type: "webhook", target, created_by: { type: "user", id: grant.identity.id }, created_at: new Date().toISOString(), address: body.address, triggers: body.triggers });
      },
    }),
    ...hookRoutes(box, {
      methods: ["GET", "DELETE"],
      pattern: /^\/api\/2\.0\/webhooks\/([^/]+)$/,
      unauthorized: () => boxError(401, "unauthorized", "Unauthorized"),
      handle({ method, grant, params: [id] }) {
        const hook = box.hooks.get(id);
        if (!hook || hook.owner !== grant.identity.id) return boxError(404, "not_found", "Not Found");
        if (method === "GET") return jsonReply(200, { id: hook.id, type: "webhook", target: hook.body.target, address: hook.body.address, triggers: hook.body.triggers });
        box.hooks.delete(id);
        return { status: 204, body: "" };
      },
    }),
  ];
}

/**
 * Figma webhooks V2 (developers.figma.com/docs/rest-api/webhooks-endpoints/): one team webhook per
 * event type, `POST /v2/webhooks` `{event_type, context: "team", context_id, endpoint, passcode}`,
 * then `GET`/`DELETE /v2/webhooks/:webhook_id`. The passcode is never read back.
 */
export const FIGMA_TEAM = "1234567890123456789";
const FIGMA_EVENTS = ["PING", "FILE_UPDATE", "FILE_VERSION_UPDATE", "FILE_DELETE", "LIBRARY_PUBLISH", "FILE_COMMENT", "DEV_MODE_STATUS_UPDATE"];
const figmaFailure = (status: number, err: string) => jsonReply(status, { status, err });

export function figmaHookApi(figma: Hooks): Route<DeclaredIdentity>[] {
  const view = (id: string, body: Record<string, any>, passcode: string) => ({
    id: Number(id),
    event_type: body.event_type,
    context: String(body.context).toUpperCase(),
    context_id: body.context_id,
    team_id: body.context === "team" ? body.context_id : "",
    plan_api_id: "organization-1",
    status: "ACTIVE",
    client_id: "switchyard-client",
    passcode,
    endpoint: body.endpoint,
    description: body.description ?? null,
  });
  return [
    ...hookRoutes(figma, {
      methods: ["POST"],
      pattern: "/api/v2/webhooks",
      unauthorized: () => figmaFailure(403, "Invalid token"),
      handle({ body, grant }) {
        const valid =
          FIGMA_EVENTS.includes(body.event_type) &&
          ["team", "project", "file"].includes(body.context) &&
          typeof body.context_id === "string" &&
          typeof body.endpoint === "string" &&
          typeof body.passcode === "string" &&
          body.passcode.length > 0 &&
          body.passcode.length <= 100;
        if (!valid) return figmaFailure(400, "Required parameter missing or invalid");
        // Team webhooks: the team's admins only (the fake's user administers FIGMA_TEAM alone).
        if (body.context !== "team" || body.context_id !== FIGMA_TEAM) return figmaFailure(403, "You must be an admin of the team");
        const hook = figma.add(grant.identity.id, body);
        return jsonReply(200, view(hook.id, body, body.passcode));
      },
    }),
    ...hookRoutes(figma, {
      methods: ["GET", "DELETE"],
      pattern: /^\/api\/v2\/webhooks\/([^/]+)$/,
      unauthorized: () => figmaFailure(403, "Invalid token"),
      handle({ method, params: [id] }) {
        const hook = figma.hooks.get(id);
        if (!hook) return figmaFailure(404, "Webhook does not exist or you do not have permissions to access this webhook");
        if (method === "DELETE") figma.hooks.delete(id);
        // The passcode is never read back: an empty string on GET.
        return jsonReply(200, view(hook.id, hook.body, ""));
      },
    }),
  ];
}

/** A GitLab push as its hook sends it, by someone (`userId`) other than the connected user. */
export const gitlabPush = (userId: number) =>
  JSON.stringify({ object_kind: "push", event_name: "push", ref: "refs/heads/main", user_id: userId, project_id: Number(GITLAB_PROJECT), commits: [{ id: randomUUID(), timestamp: new Date().toISOString() }] });
export const gitlabDeliver = (url: string, body: string, token?: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-gitlab-event": "Push Hook", "x-gitlab-event-uuid": randomUUID(), ...(token ? { "x-gitlab-token": token } : {}) }, body });

/** A Bitbucket push by someone other than the connected user, and its `X-Hub-Signature`. */
export const bitbucketPush = () =>
  JSON.stringify({ actor: { type: "user", uuid: "{someone-else}" }, repository: { full_name: `${BITBUCKET_WORKSPACE}/${BITBUCKET_REPO}` }, push: { changes: [{ commits: [{ hash: randomUUID(), date: new Date().toISOString() }] }] } });
export const bitbucketSign = (body: string, secret: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
export const bitbucketDeliver = (url: string, body: string, signature?: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-event-key": "repo:push", "x-request-uuid": randomUUID(), ...(signature ? { "x-hub-signature": signature } : {}) }, body });

/** A Figma FILE_COMMENT by a teammate, carrying `passcode` (undefined: none) in its body. */
export const figmaComment = (webhookId: string, passcode: string | undefined) =>
  JSON.stringify({
    comment: [{ text: "Looks good" }],
    comment_id: String(Math.floor(Math.random() * 1e6)),
    created_at: new Date().toISOString(),
    event_type: "FILE_COMMENT",
    file_key: "zH2aGkx3h9t8jt5Z14ldMF",
    file_name: "Mockup library",
    mentions: [],
    ...(passcode === undefined ? {} : { passcode }),
    protocol_version: "2",
    retries: 0,
    timestamp: new Date().toISOString(),
    // Someone else on the team commented.
    triggered_by: { id: "99999", handle: "A Teammate" },
    webhook_id: webhookId,
  });
export const figmaDeliver = (url: string, body: string) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.status);
