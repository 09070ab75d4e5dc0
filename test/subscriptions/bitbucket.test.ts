/**
 * Bitbucket repository webhooks, end to end against a fake that follows the webhooks API
 * (developer.atlassian.com/cloud/bitbucket/rest/api-group-webhooks/): a connection names its
 * repository (`params[workspace]`, `params[repo_slug]`); Switchyard adds a hook on it with the
 * account's token (`POST /repositories/{workspace}/{repo_slug}/hooks` with `url`, `events`,
 * `active` and a `secret`; the answer names it by its brace-wrapped `uuid`), looks it up
 * (`GET …/hooks/{uid}`) and makes it again on a 404, and deletes it on disconnect. Deliveries carry
 * `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>` keyed by the hook's secret
 * (support.atlassian.com/bitbucket-cloud/docs/manage-webhooks/).
 */
import { createHmac, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks, hookRoutes } from "./fakeHooks.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers } from "./helpers.ts";

const WORKSPACE = "acme";
const REPO = "web_site.v2";
const HOUR_MS = 60 * 60_000;
const clock = fakeClock(new Date());
const bitbucket = fakeHooks();
const HOOKS = /^\/api\/2\.0\/repositories\/([^/]+)\/([^/]+)\/hooks(?:\/([^/]+))?$/;
const uuidOf = (id: string) => `{${id.padStart(8, "0")}-0000-4000-8000-000000000000}`;

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let externalId: string;

beforeAll(async () => {
  const routes = hookRoutes(bitbucket, {
    methods: ["POST", "GET", "DELETE"],
    pattern: HOOKS,
    unauthorized: () => jsonReply(401, { type: "error", error: { message: "Access token expired or invalid." } }),
    handle({ method, body, grant, params }) {
      const [workspace, slug, uid] = params;
      if (workspace !== WORKSPACE || slug !== REPO) return jsonReply(404, { type: "error", error: { message: "Repository not found" } });
      if (method === "POST" && !uid) {
        if (typeof body.url !== "string" || !Array.isArray(body.events) || body.events.length === 0) return jsonReply(400, { type: "error", error: { message: "url and events are required" } });
        const hook = bitbucket.add(grant.identity.id, body);
        // The secret is never read back: only whether one is set.
        return jsonReply(201, { type: "webhook_subscription", uuid: uuidOf(hook.id), url: body.url, description: body.description, subject_type: "repository", active: body.active, events: body.events, secret_set: Boolean(body.secret), created_at: new Date().toISOString() });
      }
      const hook = bitbucket.live().find((h) => uuidOf(h.id) === uid);
      if (!hook) return jsonReply(404, { type: "error", error: { message: "Webhook not found" } });
      if (method === "GET") return jsonReply(200, { type: "webhook_subscription", uuid: uid, url: hook.body.url, events: hook.body.events, active: true, secret_set: true });
      if (method === "DELETE") {
        bitbucket.hooks.delete(hook.id);
        return { status: 204, body: "" };
      }
      return jsonReply(405, {});
    },
  });
  fake = await startDeclaredProvider(findConnector("bitbucket")!, { routes });
  app = await startTestApp(fake.env(), { clock });
  ada = await createOperator(app);
  const triggers = ["repo_push", "pullrequest_created"].map((trigger) => ({ connector: "bitbucket", trigger }));
  await listTriggers(app, ada, triggers);
  const account = await connectAccount(app, ada, { connector: "bitbucket", account: "alice", provider: fake, params: { workspace: WORKSPACE, repo_slug: REPO } });
  accountId = account.id;
  externalId = account.externalId;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const push = () => JSON.stringify({ actor: { type: "user", uuid: "{someone-else}" }, repository: { full_name: `${WORKSPACE}/${REPO}` }, push: { changes: [{ commits: [{ hash: randomUUID(), date: new Date().toISOString() }] }] } });
const sign = (body: string, secret: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
const deliver = (url: string, body: string, signature?: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-event-key": "repo:push", "x-request-uuid": randomUUID(), ...(signature ? { "x-hub-signature": signature } : {}) }, body });
const bitbucketEvents = () => storedEvents(app, ada, "bitbucket");
const hookPath = (uuid: string) => `/api/2.0/repositories/${WORKSPACE}/${encodeURIComponent(REPO)}/hooks/${encodeURIComponent(uuid)}`;

describe("a Bitbucket connection naming its repository", () => {
  test("gets one repository webhook, made with the account's token, for the listed triggers' events, with a secret", async () => {
    await app.app.subscriptions.runOnce(true);
    expect(await accountSubscriptions(app, ada, accountId)).toMatchObject([{ lastError: null }]);
    expect(bitbucket.live()).toHaveLength(1);
    const [hook] = bitbucket.live();
    expect(hook.owner).toBe(externalId);
    expect(hook.body).toMatchObject({ active: true });
    expect([...hook.body.events].sort()).toEqual(["pullrequest:created", "repo:push"]);
    expect(hook.body.url).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/bitbucket\\?subscription=psub_`));
    expect(hook.body.secret).toMatch(/^.{24,}$/);
    const [sub] = await accountSubscriptions(app, ada, accountId);
    expect(sub).toMatchObject({ status: "ACTIVE", resource: `repositories/${WORKSPACE}/${REPO}`, providerId: uuidOf(hook.id), expiresAt: null });
  });

  test("a delivery signed with the hook's secret is forwarded, whoever pushed; forged ones are refused", async () => {
    const [hook] = bitbucket.live();
    const body = push();
    expect((await deliver(hook.body.url, body, sign(body, hook.body.secret))).status).toBe(200);
    expect((await bitbucketEvents()).map((e) => [e.trigger, e.account])).toEqual([["repo_push", "alice"]]);
    const other = push();
    for (const signature of [sign(other, "not-the-hook-secret"), sign(body, hook.body.secret), undefined]) expect((await deliver(hook.body.url, other, signature)).status).toBe(401);
    expect(await bitbucketEvents()).toHaveLength(1);
  });

  test("looked up every 6 hours by its uuid; made again when Bitbucket no longer has it", async () => {
    const [hook] = bitbucket.live();
    clock.advance(6 * HOUR_MS);
    await app.app.subscriptions.runOnce(true);
    expect(bitbucket.made("GET").map((c) => [c.path, c.owner])).toEqual([[hookPath(uuidOf(hook.id)), externalId]]);
    bitbucket.hooks.delete(hook.id);
    clock.advance(6 * HOUR_MS);
    await app.app.subscriptions.runOnce(true);
    expect(bitbucket.live()).toHaveLength(1);
    const [again] = bitbucket.live();
    expect(again.id).not.toBe(hook.id);
    const [sub] = (await accountSubscriptions(app, ada, accountId)).filter((s) => s.status !== "DELETED");
    expect(sub).toMatchObject({ status: "ACTIVE", providerId: uuidOf(again.id) });
    const body = push();
    expect((await deliver(again.body.url, body, sign(body, hook.body.secret))).status).toBe(401);
    expect((await deliver(again.body.url, body, sign(body, again.body.secret))).status).toBe(200);
  });

  test("deleted at Bitbucket on disconnect", async () => {
    const [hook] = bitbucket.live();
    await disconnect(app, ada, accountId);
    expect(bitbucket.made("DELETE").map((c) => [c.path, c.owner])).toEqual([[hookPath(uuidOf(hook.id)), externalId]]);
    expect(bitbucket.live()).toHaveLength(0);
  });
});
