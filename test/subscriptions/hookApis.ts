/**
 * The webhook APIs of the providers whose webhooks never expire and are looked up, by id (GitLab,
 * Bitbucket, Box, Figma) or in the list of the caller's webhooks (ClickUp, Pipedrive, monday), as
 * fake routes over a `fakeHooks()` memory. Each provider's own test file tells how its webhooks are
 * made, signed and deleted; remadeWhenGone.test.ts tells, for all of them at once, how they are
 * looked up and made again. Both speak to these same fakes.
 */
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { type FakeRequest, jsonReply, type Route } from "../helpers/fakeProviders/oauthServer.ts";
import type { DeclaredIdentity } from "../helpers/fakeProviders/declared.ts";
import { type fakeHooks, type Hook, hookRoutes } from "./fakeHooks.ts";

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

/**
 * ClickUp webhooks (developer.clickup.com/reference/createwebhook, /reference/webhooks-1,
 * /reference/deletewebhook): `POST /team/{team_id}/webhook` `{endpoint, events}`, answered with a
 * UUID and the webhook's `secret`; `GET /team/{team_id}/webhook` lists the caller's own, each with
 * its `health`; `DELETE /webhook/{webhook_id}`. The token is the whole Authorization header (no
 * Bearer). Each hook keeps the secret ClickUp answered beside what was sent (`body.secret`).
 */
export const CLICKUP_TEAM = "9012345";
export const clickupListPath = `/api/api/v2/team/${CLICKUP_TEAM}/webhook`;
export type ClickUpHealth = { status: "active" | "failing" | "suspended"; fail_count: number };

/** `health`: each webhook's as ClickUp reports it (active unless a test says otherwise). */
export function clickupHookApi(clickup: Hooks, health = new Map<string, ClickUpHealth>()): Route<DeclaredIdentity>[] {
  // The fake's grants are looked up as a Bearer token.
  const authorized = (req: FakeRequest, ctx: { authenticate(r: FakeRequest): any }) => {
    const raw = String(req.headers.authorization ?? "");
    return raw && !/^bearer /i.test(raw) ? ctx.authenticate({ ...req, headers: { ...req.headers, authorization: `Bearer ${raw}` } }) : undefined;
  };
  const unauthorized = () => jsonReply(401, { err: "Token invalid", ECODE: "OAUTH_025" });
  const teamRefused = () => jsonReply(401, { err: "Team not authorized", ECODE: "OAUTH_027" });
  const shown = (hook: Hook) => ({
    id: hook.id, userid: 183, team_id: Number(CLICKUP_TEAM), endpoint: hook.body.endpoint, client_id: "CLIENT", events: hook.body.events,
    task_id: null, list_id: null, folder_id: null, space_id: null, health: health.get(hook.id) ?? { status: "active", fail_count: 0 }, secret: hook.body.secret,
  });
  const team = /^\/api\/api\/v2\/team\/([^/]+)\/webhook$/;
  return [
    ...hookRoutes(clickup, {
      methods: ["POST"],
      pattern: team,
      authorized,
      unauthorized,
      handle({ body, grant, params: [id] }) {
        if (id !== CLICKUP_TEAM) return teamRefused();
        if (typeof body.endpoint !== "string" || !Array.isArray(body.events)) return jsonReply(400, { err: "Endpoint and events are required" });
        const secret = randomUUID().replaceAll("-", "").toUpperCase();
        const hook = clickup.add(grant.identity.id, { ...body, secret }, randomUUID());
        return jsonReply(200, { id: hook.id, webhook: shown(hook) });
      },
    }),
    ...hookRoutes(clickup, {
      methods: ["GET"],
      pattern: team,
      authorized,
      unauthorized,
      handle({ grant, params: [id] }) {
        if (id !== CLICKUP_TEAM) return teamRefused();
        return jsonReply(200, { webhooks: clickup.live().filter((hook) => hook.owner === grant.identity.id).map(shown) });
      },
    }),
    ...hookRoutes(clickup, {
      methods: ["DELETE"],
      pattern: /^\/api\/api\/v2\/webhook\/([^/]+)$/,
      authorized,
      unauthorized,
      handle({ params: [id] }) {
        if (!clickup.hooks.delete(id)) return jsonReply(404, { err: "Webhook not found" });
        return jsonReply(200, {});
      },
    }),
  ];
}

/** A ClickUp taskCreated by someone else, and its `X-Signature` (hex HMAC-SHA256 of the body with the webhook's secret). */
export const clickupTaskCreated = (webhookId: string) =>
  JSON.stringify({ event: "taskCreated", history_items: [{ id: randomUUID(), date: String(Date.now()), user: { id: 999, username: "Someone Else" } }], task_id: "86a1b2c3", webhook_id: webhookId });
export const clickupSign = (body: string, secret: string) => createHmac("sha256", secret).update(body).digest("hex");
export const clickupDeliver = (url: string, body: string, signature?: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(signature ? { "x-signature": signature } : {}) }, body }).then((r) => r.status);

/**
 * Pipedrive webhooks v2 (developers.pipedrive.com/docs/api/v1/Webhooks): `POST /v1/webhooks`
 * `{subscription_url, event_action, event_object, http_auth_user, http_auth_password, version}`,
 * `GET /v1/webhooks` (the caller's own), `DELETE /v1/webhooks/{id}`.
 */
const PIPEDRIVE_ACTIONS = ["create", "change", "delete", "*"];
const PIPEDRIVE_OBJECTS = ["activity", "deal", "lead", "note", "organization", "person", "product", "user", "*"];
export const PIPEDRIVE_LIST_PATH = "/api/v1/webhooks";

export function pipedriveHookApi(pipedrive: Hooks): Route<DeclaredIdentity>[] {
  const unauthorized = () => jsonReply(401, { success: false, error: "unauthorized access", errorCode: 401 });
  const shown = (hook: Hook) => ({
    id: Number(hook.id), company_id: 12882925, owner_id: 18487521, user_id: 18487521, event_action: hook.body.event_action, event_object: hook.body.event_object,
    subscription_url: hook.body.subscription_url, version: "2.0", is_active: 1, add_time: "2026-01-01 10:00:00", type: "general",
    http_auth_user: hook.body.http_auth_user ?? null, http_auth_password: hook.body.http_auth_password ?? null,
  });
  return [
    ...hookRoutes(pipedrive, {
      methods: ["POST"],
      pattern: PIPEDRIVE_LIST_PATH,
      unauthorized,
      handle({ body, grant }) {
        const valid = typeof body.subscription_url === "string" && body.version === "2.0" && PIPEDRIVE_ACTIONS.includes(body.event_action) && PIPEDRIVE_OBJECTS.includes(body.event_object);
        if (!valid) return jsonReply(400, { success: false, error: "Bad request", errorCode: 400 });
        return jsonReply(201, { success: true, data: shown(pipedrive.add(grant.identity.id, body)) });
      },
    }),
    ...hookRoutes(pipedrive, {
      methods: ["GET"],
      pattern: PIPEDRIVE_LIST_PATH,
      unauthorized,
      // The webhooks the caller's app made for this user.
      handle: ({ grant }) => jsonReply(200, { success: true, data: pipedrive.live().filter((h) => h.owner === grant.identity.id).map(shown) }),
    }),
    ...hookRoutes(pipedrive, {
      methods: ["DELETE"],
      pattern: /^\/api\/v1\/webhooks\/([0-9]+)$/,
      unauthorized,
      handle({ params: [id] }) {
        if (!pipedrive.hooks.delete(id)) return jsonReply(404, { success: false, error: "Webhook not found", errorCode: 404 });
        return jsonReply(200, { success: true, data: { id: Number(id) } });
      },
    }),
  ];
}

export const basicAuth = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
/** A Pipedrive v2 delivery of `action`.`object`, the change made by another user of the company, with `authorization` (undefined: none). */
export function pipedriveDeliver(url: string, action: string, object: string, authorization?: string) {
  const id = Math.floor(Math.random() * 1e6);
  const body = JSON.stringify({
    meta: { action, entity: object, version: "2.0", company_id: 12882925, user_id: 777, id: randomUUID(), entity_id: String(id), webhook_id: "1", attempt: 1, host: "acme.pipedrive.com", timestamp: new Date().toISOString(), change_source: "app" },
    data: { id, title: "Acme Corp — 20 seats", value: 12000, currency: "USD", owner_id: 777, update_time: new Date().toISOString() },
    previous: null,
  });
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) }, body }).then((r) => r.status);
}

/**
 * monday.com board webhooks over its GraphQL API (developer.monday.com/api-reference/reference/webhooks),
 * all at `POST /v2`: `create_webhook(board_id, url, event)`, during which monday POSTs
 * `{"challenge": "…"}` to the URL and makes nothing unless the same JSON comes back;
 * `webhooks(board_id)` lists the board's; `delete_webhook(id)`. A failure is answered 200 with
 * `errors`. The routes share the identity's `POST /v2`: pass them as the fake's `before`.
 */
export const MONDAY_BOARD = "1234567890";
const MONDAY_EVENTS = ["change_column_value", "change_status_column_value", "change_name", "create_item", "item_archived", "item_deleted", "create_update", "edit_update", "delete_update"];
export interface MondayBoard {
  /** Each challenge sent while a webhook was made, and what came back. */
  challenges: Array<{ sent: string; answered: unknown; status: number }>;
  /** When set, the board's webhooks are answered with GraphQL errors (status 200), as monday answers a failing query. */
  listErrors: boolean;
}
export const mondayGraphqlError = (message: string) => jsonReply(200, { errors: [{ message, locations: [{ line: 1, column: 1 }], extensions: { code: "InvalidBoardIdException" } }], account_id: 4242 });
export const mondayQuery = (body: Record<string, any>) => String(body.query ?? "");
export const isMondayList = (body: Record<string, any>) => /^query .*webhooks \(board_id: \$board\)/.test(mondayQuery(body));

export function mondayHookApi(monday: Hooks, board: MondayBoard = { challenges: [], listErrors: false }): Route<DeclaredIdentity>[] {
  const query = (req: FakeRequest) => {
    try {
      return mondayQuery(JSON.parse(req.rawBody.toString()) as Record<string, any>);
    } catch {
      return "";
    }
  };
  const error = mondayGraphqlError;
  return [
    {
      method: "POST",
      path: "/api/v2",
      when: (req) => /create_webhook|delete_webhook|webhooks \(board_id/.test(query(req)),
      async handle(req, ctx) {
        const grant = ctx.authenticate(req);
        const body = monday.record(req, grant);
        if (!grant) return jsonReply(401, { errors: [{ message: "Not Authenticated", extensions: { code: "UNAUTHENTICATED" } }] });
        const vars = body.variables ?? {};
        if (isMondayList(body)) {
          if (board.listErrors) return error("Internal server error");
          if (String(vars.board) !== MONDAY_BOARD) return error("Board not found");
          // As monday lists them: ids as strings, the event type, the board, the config (JSON string or null).
          const webhooks = monday.live().filter((h) => h.body.variables.board === MONDAY_BOARD).map((h) => ({ id: h.id, event: h.body.variables.event, board_id: MONDAY_BOARD, config: null }));
          return jsonReply(200, { data: { webhooks }, account_id: 4242 });
        }
        if (mondayQuery(body).includes("delete_webhook")) {
          const hook = monday.hooks.get(String(vars.id));
          if (!hook) return error("Webhook not found");
          monday.hooks.delete(hook.id);
          return jsonReply(200, { data: { delete_webhook: { id: hook.id, board_id: hook.body.variables.board } }, account_id: 4242 });
        }
        if (!MONDAY_EVENTS.includes(vars.event) || typeof vars.url !== "string") return error("Invalid argument");
        if (vars.board !== MONDAY_BOARD) return error("Board not found");
        // The URL is verified while the mutation runs: the challenge must come back as sent.
        const sent = randomBytes(24).toString("base64url");
        const answer = await fetch(vars.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ challenge: sent }) });
        const answered = await answer.json().catch(() => null);
        board.challenges.push({ sent, answered, status: answer.status });
        if (answer.status !== 200 || (answered as { challenge?: string })?.challenge !== sent) return error("Failed to verify the url");
        const hook = monday.add(grant.identity.id, body);
        return jsonReply(200, { data: { create_webhook: { id: hook.id, board_id: Number(MONDAY_BOARD) } }, account_id: 4242 });
      },
    },
  ];
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
/** The token monday puts in Authorization: an HS256 JWT signed with the app's Signing Secret, issued at `now` (the app's clock). */
export function mondayJwt(secret: string, now: Date, claims: Record<string, unknown> = {}) {
  const seconds = Math.floor(now.getTime() / 1000);
  const unsigned = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ accountId: 4242, userId: 55512345, aud: "https://example.com", exp: seconds + 60, iat: seconds, ...claims })}`;
  return `${unsigned}.${createHmac("sha256", secret).update(unsigned).digest("base64url")}`;
}
/** An item someone else added to the board, as monday sends it. */
export const mondayItemCreated = () =>
  JSON.stringify({
    event: {
      app: "monday",
      type: "create_pulse",
      triggerTime: new Date().toISOString(),
      subscriptionId: 73759690,
      userId: 99999,
      originalTriggerUuid: null,
      boardId: Number(MONDAY_BOARD),
      pulseId: 9876543210,
      pulseName: "Write the release notes",
      groupId: "topics",
      groupName: "This week",
      groupColor: "#579bfc",
      isTopGroup: true,
      columnValues: {},
      triggerUuid: randomUUID().replaceAll("-", ""),
    },
  });
export const mondayDeliver = (url: string, body: string, authorization?: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(authorization === undefined ? {} : { authorization }) }, body }).then((r) => r.status);
