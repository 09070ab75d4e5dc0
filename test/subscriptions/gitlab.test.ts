/**
 * GitLab project webhooks, end to end against a fake that follows the project webhooks API
 * (docs.gitlab.com/api/project_webhooks/): a connection names its project (`params[project_id]`);
 * Switchyard adds a hook on it with the account's token (`POST /projects/:id/hooks` with `url`,
 * `token` and one flag per event kind), looks it up (`GET /projects/:id/hooks/:hook_id`) and makes
 * it again when GitLab answers 404, and deletes it on disconnect. GitLab sends the hook's token in
 * `X-Gitlab-Token` (docs.gitlab.com/user/project/integrations/webhooks/).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks, hookRoutes } from "./fakeHooks.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers, expectParamRefused } from "./helpers.ts";

const PROJECT = "4242";
const HOUR_MS = 60 * 60_000;
const clock = fakeClock(new Date());
const gitlab = fakeHooks();
const HOOKS = /^\/api\/api\/v4\/projects\/([^/]+)\/hooks(?:\/([^/]+))?$/;
const FLAGS = ["push_events", "tag_push_events", "issues_events", "merge_requests_events", "pipeline_events"];

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let externalId: string;

beforeAll(async () => {
  // GitLab answers 404 for a project the token cannot see, and for a hook that is not the project's.
  const routes = hookRoutes(gitlab, {
    methods: ["POST", "GET", "DELETE"],
    pattern: HOOKS,
    unauthorized: () => jsonReply(401, { message: "401 Unauthorized" }),
    handle({ method, body, grant, params }) {
      const [project, hookId] = params.slice(0, 2);
      if (project !== PROJECT) return jsonReply(404, { message: "404 Project Not Found" });
      if (method === "POST" && !hookId) {
        if (typeof body.url !== "string" || !body.url) return jsonReply(400, { error: "url is missing" });
        // push_events defaults to true: only what is sent as false is off.
        const hook = gitlab.add(grant.identity.id, { push_events: true, ...body });
        return jsonReply(201, { id: Number(hook.id), url: body.url, project_id: Number(PROJECT), ...Object.fromEntries(FLAGS.map((f) => [f, hook.body[f] ?? false])), created_at: new Date().toISOString() });
      }
      const hook = hookId ? gitlab.hooks.get(hookId) : undefined;
      if (!hook) return jsonReply(404, { message: "404 Not Found" });
      if (method === "GET") return jsonReply(200, { id: Number(hook.id), url: hook.body.url, project_id: Number(PROJECT) });
      if (method === "DELETE") {
        gitlab.hooks.delete(hook.id);
        return { status: 204, body: "" };
      }
      return jsonReply(405, {});
    },
  });
  fake = await startDeclaredProvider(findConnector("gitlab")!, { routes });
  app = await startTestApp(fake.env(), { clock });
  ada = await createOperator(app);
  const triggers = ["push", "issue_opened", "issue_closed"].map((trigger) => ({ connector: "gitlab", trigger }));
  await listTriggers(app, ada, triggers);
  const account = await connectAccount(app, ada, { connector: "gitlab", account: "alice", provider: fake, params: { project_id: PROJECT } });
  accountId = account.id;
  externalId = account.externalId;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const push = (userId: number) =>
  JSON.stringify({ object_kind: "push", event_name: "push", ref: "refs/heads/main", user_id: userId, project_id: Number(PROJECT), commits: [{ id: randomUUID(), timestamp: new Date().toISOString() }] });
const deliver = (url: string, body: string, token?: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-gitlab-event": "Push Hook", "x-gitlab-event-uuid": randomUUID(), ...(token ? { "x-gitlab-token": token } : {}) }, body });
const gitlabEvents = () => storedEvents(app, ada, "gitlab");

describe("a GitLab connection naming its project", () => {
  test("the project id is a resource parameter: optional at connect (it names the first watched resource), and only digits", async () => {
    await expectParamRefused(app, ada.apiKey, "gitlab", "project_id", ["group/project", "12.5"]);
  });

  test("gets one project webhook, made with the account's token, for the listed triggers' event kinds", async () => {
    await app.app.subscriptions.runOnce(true);
    expect(await accountSubscriptions(app, ada, accountId)).toMatchObject([{ lastError: null }]);
    expect(gitlab.live()).toHaveLength(1);
    const [hook] = gitlab.live();
    expect(hook.owner).toBe(externalId);
    expect(hook.body).toMatchObject({ push_events: true, issues_events: true, tag_push_events: false, merge_requests_events: false, pipeline_events: false });
    expect(hook.body.url).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/gitlab\\?subscription=psub_`));
    expect(hook.body.token).toMatch(/^.{24,}$/);
    const [sub] = await accountSubscriptions(app, ada, accountId);
    expect(sub).toMatchObject({ status: "ACTIVE", resource: `projects/${PROJECT}`, providerId: hook.id, expiresAt: null, lastError: null });
  });

  test("an event carrying the hook's token is forwarded, whoever acted in the project; a wrong or missing token is refused", async () => {
    const [hook] = gitlab.live();
    expect((await deliver(hook.body.url, push(77), hook.body.token)).status).toBe(200);
    const events = await gitlabEvents();
    expect(events.map((e) => [e.trigger, e.account])).toEqual([["push", "alice"]]);
    for (const token of ["not-the-hook-token", undefined]) expect((await deliver(hook.body.url, push(78), token)).status).toBe(401);
    // The token of this hook does not open another subscription's URL.
    expect((await deliver(hook.body.url.replace(/subscription=[^&]+/, "subscription=psub_unknown"), push(79), hook.body.token)).status).toBe(401);
    expect(await gitlabEvents()).toHaveLength(1);
  });

  test("looked up every 6 hours; made again when GitLab no longer has it", async () => {
    const [hook] = gitlab.live();
    clock.advance(5 * HOUR_MS);
    await app.app.subscriptions.runOnce(true);
    expect(gitlab.made("GET")).toHaveLength(0);
    clock.advance(HOUR_MS);
    await app.app.subscriptions.runOnce(true);
    expect(gitlab.made("GET").map((c) => c.path)).toEqual([`/api/api/v4/projects/${PROJECT}/hooks/${hook.id}`]);
    expect(gitlab.live().map((h) => h.id)).toEqual([hook.id]);

    // Someone removes it in GitLab's settings: the next look-up makes a new one.
    gitlab.hooks.delete(hook.id);
    clock.advance(6 * HOUR_MS);
    await app.app.subscriptions.runOnce(true);
    expect(gitlab.live()).toHaveLength(1);
    const [again] = gitlab.live();
    expect(again.id).not.toBe(hook.id);
    expect(again.owner).toBe(externalId);
    const [sub] = (await accountSubscriptions(app, ada, accountId)).filter((s) => s.status !== "DELETED");
    expect(sub).toMatchObject({ status: "ACTIVE", providerId: again.id });
    // The old token no longer opens anything; the new one does.
    expect((await deliver(again.body.url, push(80), hook.body.token)).status).toBe(401);
    expect((await deliver(again.body.url, push(80), again.body.token)).status).toBe(200);
  });

  test("deleted at GitLab on disconnect", async () => {
    const [hook] = gitlab.live();
    await disconnect(app, ada, accountId);
    expect(gitlab.made("DELETE").map((c) => [c.path, c.owner])).toEqual([[`/api/api/v4/projects/${PROJECT}/hooks/${hook.id}`, externalId]]);
    expect(gitlab.live()).toHaveLength(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
