/**
 * A connection watches zero or more resources (§13), told as a GitLab user would live it: connect
 * without naming a project (nothing is made at GitLab), watch two projects (two project webhooks,
 * one each), receive an event of each (forwarded with its `resource`), stop watching one (its
 * webhook deleted at GitLab), disconnect (the other deleted too). Against a fake that follows
 * GitLab's project webhooks API (docs.gitlab.com/api/project_webhooks/): `POST /projects/:id/hooks`,
 * `GET …/hooks/:hook_id`, `DELETE …/hooks/:hook_id`, the hook's token sent back in `X-Gitlab-Token`.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { checkedFetch as fetch } from "../helpers/openapi.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks, hookRoutes } from "../subscriptions/fakeHooks.ts";

const PROJECTS = ["4242", "4343", "4444", "4545"];
const clock = fakeClock(new Date());
const gitlab = fakeHooks();
const HOOKS = /^\/api\/api\/v4\/projects\/([^/]+)\/hooks(?:\/([^/]+))?$/;

let fake: FakeDeclaredProvider;
let receiver: Receiver;
let app: TestApp;
let ada: Operator;
let connectionId: string;

interface Resource {
  id: string;
  params: Record<string, string>;
  subscription: { status: string; providerId: string | null; resource: string } | null;
  createdAt: string;
}

beforeAll(async () => {
  const routes = hookRoutes(gitlab, {
    methods: ["POST", "GET", "DELETE"],
    pattern: HOOKS,
    unauthorized: () => jsonReply(401, { message: "401 Unauthorized" }),
    handle({ method, body, grant, params }) {
      const [project, hookId] = params.slice(0, 2);
      if (!PROJECTS.includes(project)) return jsonReply(404, { message: "404 Project Not Found" });
      if (method === "POST" && !hookId) {
        const hook = gitlab.add(grant.identity.id, { push_events: true, ...body, project });
        return jsonReply(201, { id: Number(hook.id), url: body.url, project_id: Number(project) });
      }
      const hook = hookId ? gitlab.hooks.get(hookId) : undefined;
      if (!hook || hook.body.project !== project) return jsonReply(404, { message: "404 Not Found" });
      if (method === "GET") return jsonReply(200, { id: Number(hook.id), url: hook.body.url, project_id: Number(project) });
      gitlab.hooks.delete(hook.id);
      return { status: 204, body: "" };
    },
  });
  fake = await startDeclaredProvider(findConnector("gitlab")!, { routes });
  receiver = await startReceiver();
  app = await startTestApp({ ...fake.env(), MAX_RESOURCES_PER_CONNECTION: "3", DELIVERY_RETRY_SCHEDULE: "100ms" }, { clock, worker: true });
  ada = await createOperator(app);
  ok(
    await app.gql(
      SaveForwardingSettings,
      { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/hook`, triggers: [{ connector: "gitlab", trigger: "push" }] } },
      { token: ada.token },
    ),
  );
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
  await receiver?.close();
});

const base = () => `${app.url}/api/v1/connections/gitlab/alice`;
const headers = () => ({ "x-api-key": ada.apiKey, "content-type": "application/json" });
// Oldest first is by the time each was added: the injected clock moves a second per request.
const watch = (params: unknown) => (clock.advance(1000), fetch)(`${base()}/resources`, { method: "POST", headers: headers(), body: JSON.stringify({ params }) });
const resources = async () => (await (await fetch(`${base()}/resources`, { headers: headers() })).json()) as Resource[];
const connection = async () => (await (await fetch(base(), { headers: headers() })).json()) as { status: string; watching: string; resources: Resource[]; subscriptions: { status: string }[] };
const problem = async (response: Response) => ((await response.json()) as { code: string; detail: string });
const push = (project: string) => JSON.stringify({ object_kind: "push", ref: "refs/heads/main", user_id: 7, project_id: Number(project), commits: [{ id: randomUUID(), timestamp: new Date().toISOString() }] });
const deliver = (hook: { body: Record<string, any> }) =>
  globalThis.fetch(hook.body.url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gitlab-event": "Push Hook", "x-gitlab-event-uuid": randomUUID(), "x-gitlab-token": hook.body.token },
    body: push(hook.body.project),
  });
const hookOf = (project: string) => gitlab.live().find((h) => h.body.project === project)!;

describe("a GitLab connection and the projects it watches", () => {
  test("connects without a project: ACTIVE, watching NONE, nothing made at GitLab", async () => {
    connectionId = (await connectAccount(app, ada, { connector: "gitlab", account: "alice", provider: fake, params: {} })).id;
    await app.app.subscriptions.runOnce(true);
    expect(await connection()).toMatchObject({ status: "ACTIVE", watching: "NONE", resources: [], subscriptions: [] });
    expect(gitlab.made("POST")).toEqual([]);
  });

  test("watches two projects: 201 each (a number is taken as its decimal string), 200 for the same params again; two webhooks, one per project", async () => {
    const first = await watch({ project_id: "4242" });
    expect(first.status).toBe(201);
    const made = (await first.json()) as Resource;
    expect(made).toMatchObject({ id: expect.stringMatching(/^res_/), params: { project_id: "4242" }, subscription: null });
    const again = await watch({ project_id: "4242" });
    expect(again.status).toBe(200);
    expect(((await again.json()) as Resource).id).toBe(made.id);
    const second = await watch({ project_id: 4343 });
    expect(second.status).toBe(201);
    expect(((await second.json()) as Resource).params).toEqual({ project_id: "4343" });

    await app.app.subscriptions.runOnce(true);
    expect(gitlab.made("POST").map((c) => c.path).sort()).toEqual(["/api/api/v4/projects/4242/hooks", "/api/api/v4/projects/4343/hooks"]);
    const listed = await resources();
    expect(listed.map((r) => [r.params.project_id, r.subscription?.status, r.subscription?.resource])).toEqual([
      ["4242", "ACTIVE", "projects/4242"],
      ["4343", "ACTIVE", "projects/4343"],
    ]);
    expect(listed.map((r) => r.subscription?.providerId).sort()).toEqual([hookOf("4242").id, hookOf("4343").id].sort());
    const now = await connection();
    expect(now.watching).toBe("RESOURCES");
    expect(now.subscriptions).toHaveLength(2);
    expect(now.resources.map((r) => r.id)).toEqual(listed.map((r) => r.id));
  });

  test("an event of each project is forwarded with its resource beside the account", async () => {
    for (const project of ["4242", "4343"]) expect((await deliver(hookOf(project))).status).toBe(200);
    const received = await receiver.waitFor((requests) => requests.length >= 2, 20_000);
    const bodies = received.map((r) => JSON.parse(r.body) as { account: string; resource: unknown; type: string });
    expect(bodies.map((b) => [b.type, b.account, b.resource]).sort()).toEqual([
      ["gitlab.push", "alice", { project_id: "4242" }],
      ["gitlab.push", "alice", { project_id: "4343" }],
    ]);
    const log = ok(
      await app.gql<{ deployment: { eventLog: { nodes: { trigger: string; resource: unknown }[] } } }, { id: string }>(
        `query($id: ID!) { deployment(id: $id) { eventLog { nodes { trigger resource } } } }`,
        { id: ada.deploymentId },
        { token: ada.token },
      ),
    );
    expect(log.deployment.eventLog.nodes.filter((e) => e.trigger === "push").map((e) => e.resource)).toEqual(expect.arrayContaining([{ project_id: "4242" }, { project_id: "4343" }]));
  });

  test("bad params are 400 invalid_parameter naming the parameter; past MAX_RESOURCES_PER_CONNECTION 409 limit_exceeded", async () => {
    for (const params of [{ project_id: "group/project" }, {}, { project_id: "12", other: "1" }, { project_id: true }, "4242", null]) {
      const response = await watch(params);
      expect(response.status, JSON.stringify(params)).toBe(400);
      const body = await problem(response);
      expect(body.code).toBe("invalid_parameter");
      expect(body.detail).toMatch(/params/);
    }
    expect((await problem(await watch({ project_id: "x" }))).detail).toMatch(/params\.project_id/);
    const notJson = await fetch(`${base()}/resources`, { method: "POST", headers: headers(), body: "{" });
    expect(notJson.status).toBe(400);
    expect((await watch({ project_id: "4444" })).status).toBe(201);
    const over = await watch({ project_id: "4545" });
    expect(over.status).toBe(409);
    expect((await problem(over)).code).toBe("limit_exceeded");
  });

  test("GraphQL: resources and watching on the connection; watchResource and unwatchResource with the REST codes", async () => {
    const read = ok(
      await app.gql<{ deployment: { connectedAccounts: { id: string; watching: string; resources: { id: string; params: unknown; subscription: { status: string } | null }[] }[] } }, { id: string }>(
        `query($id: ID!) { deployment(id: $id) { connectedAccounts { id watching resources { id params subscription { status } } } } }`,
        { id: ada.deploymentId },
        { token: ada.token },
      ),
    );
    const alice = read.deployment.connectedAccounts.find((a) => a.id === connectionId)!;
    expect(alice.watching).toBe("RESOURCES");
    expect(alice.resources.map((r) => r.params)).toEqual([{ project_id: "4242" }, { project_id: "4343" }, { project_id: "4444" }]);
    const Watch = `mutation($c: ID!, $p: JSON!) { watchResource(connectionId: $c, params: $p) { id params } }`;
    expect(errorCode(await app.gql(Watch, { c: connectionId, p: { project_id: "nope" } }, { token: ada.token }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await app.gql(Watch, { c: connectionId, p: { project_id: "4545" } }, { token: ada.token }))).toBe("LIMIT_EXCEEDED");
    const same = ok(await app.gql<{ watchResource: { id: string } }, { c: string; p: unknown }>(Watch, { c: connectionId, p: { project_id: "4444" } }, { apiKey: ada.apiKey }));
    const Unwatch = `mutation($id: ID!) { unwatchResource(id: $id) }`;
    expect(ok(await app.gql<{ unwatchResource: boolean }, { id: string }>(Unwatch, { id: same.watchResource.id }, { token: ada.token })).unwatchResource).toBe(true);
    expect(errorCode(await app.gql(Unwatch, { id: same.watchResource.id }, { token: ada.token }))).toBe("NOT_FOUND");
    await app.app.subscriptions.runOnce(true);
  });

  test("stops watching one: 204, its webhook deleted at GitLab; again 404 resource_not_found", async () => {
    const [, second] = await resources();
    const hook = hookOf("4343");
    const removed = await fetch(`${base()}/resources/${second.id}`, { method: "DELETE", headers: headers() });
    expect(removed.status).toBe(204);
    const again = await fetch(`${base()}/resources/${second.id}`, { method: "DELETE", headers: headers() });
    expect(again.status).toBe(404);
    expect((await problem(again)).code).toBe("resource_not_found");
    await app.app.subscriptions.runOnce(true);
    expect(gitlab.made("DELETE").map((c) => c.path)).toContain(`/api/api/v4/projects/4343/hooks/${hook.id}`);
    expect(gitlab.live().map((h) => h.body.project)).toEqual(["4242"]);
    expect((await resources()).map((r) => r.params.project_id)).toEqual(["4242"]);
    expect((await connection()).subscriptions).toHaveLength(1);
  });

  test("disconnect deletes every webhook; a disconnected connection watches nothing more (409 connection_disconnected)", async () => {
    expect((await fetch(base(), { method: "DELETE", headers: headers() })).status).toBe(204);
    expect(gitlab.live()).toEqual([]);
    const after = await watch({ project_id: "4545" });
    expect(after.status).toBe(409);
    expect((await problem(after)).code).toBe("connection_disconnected");
  });

  test("an unknown connection is 404 connection_not_found", async () => {
    const response = await fetch(`${app.url}/api/v1/connections/gitlab/nobody/resources`, { headers: headers() });
    expect(response.status).toBe(404);
    expect((await problem(response)).code).toBe("connection_not_found");
  });
});
