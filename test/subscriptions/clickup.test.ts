/**
 * ClickUp webhooks, end to end against a fake that follows the API (developer.clickup.com/docs/webhooks,
 * /reference/createwebhook, /reference/deletewebhook): a connection names its Workspace
 * (`params[team_id]`); Switchyard creates a webhook there with the account's token (sent as
 * `Authorization: <token>`, no Bearer) — `POST /team/{team_id}/webhook` with `endpoint` and
 * `events` — keeps the `webhook.secret` ClickUp answers, verifies `X-Signature` (hex HMAC-SHA256 of
 * the body) with it, and deletes the webhook (`DELETE /webhook/{webhook_id}`) on disconnect.
 * ClickUp documents no read of one webhook; every 6 hours the Workspace's webhooks are listed
 * (`GET /team/{team_id}/webhook`, /reference/webhooks-1: `{webhooks:[{id, …, health:{status,
 * fail_count}}]}`, the caller's own): one that is gone, or `suspended` (ClickUp sends it nothing
 * more, /docs/webhookhealth), is made again; a `failing` one is kept (ClickUp still sends to it).
 */
import { createHmac, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { fakeClock } from "../helpers/clock.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { jsonReply, type FakeRequest } from "../helpers/fakeProviders/oauthServer.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks, hookRoutes } from "./fakeHooks.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers } from "./helpers.ts";

const TEAM = "9012345";
const clickup = fakeHooks();
const secrets = new Map<string, string>();
/** Each webhook's health as ClickUp reports it (active unless a test says otherwise). */
const health = new Map<string, { status: "active" | "failing" | "suspended"; fail_count: number }>();
const clock = fakeClock(new Date());
const CHECK_MS = 6 * 60 * 60_000;

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let externalId: string;

beforeAll(async () => {
  // ClickUp takes the token as the whole Authorization header; the fake's grants are looked up as a Bearer token.
  const grantOf = (req: FakeRequest, ctx: { authenticate(r: FakeRequest): any }) => {
    const raw = String(req.headers.authorization ?? "");
    return raw && !/^bearer /i.test(raw) ? ctx.authenticate({ ...req, headers: { ...req.headers, authorization: `Bearer ${raw}` } }) : undefined;
  };
  fake = await startDeclaredProvider(findConnector("clickup")!, {
    routes: [
      ...hookRoutes(clickup, {
        methods: ["POST"],
        pattern: /^\/api\/api\/v2\/team\/([^/]+)\/webhook$/,
        authorized: grantOf,
        unauthorized: () => jsonReply(401, { err: "Token invalid", ECODE: "OAUTH_025" }),
        handle({ body, grant, params: [team] }) {
          if (team !== TEAM) return jsonReply(401, { err: "Team not authorized", ECODE: "OAUTH_027" });
          if (typeof body.endpoint !== "string" || !Array.isArray(body.events)) return jsonReply(400, { err: "Endpoint and events are required" });
          const hook = clickup.add(grant.identity.id, body);
          const id = randomUUID();
          clickup.hooks.delete(hook.id);
          clickup.hooks.set(id, { ...hook, id });
          const secret = randomUUID().replaceAll("-", "").toUpperCase();
          secrets.set(id, secret);
          return jsonReply(200, { id, webhook: { id, userid: 183, team_id: Number(TEAM), endpoint: body.endpoint, client_id: "CLIENT", events: body.events, task_id: null, list_id: null, folder_id: null, space_id: null, health: { status: "active", fail_count: 0 }, secret } });
        },
      }),
      ...hookRoutes(clickup, {
        methods: ["GET"],
        pattern: /^\/api\/api\/v2\/team\/([^/]+)\/webhook$/,
        authorized: grantOf,
        unauthorized: () => jsonReply(401, { err: "Token invalid", ECODE: "OAUTH_025" }),
        handle({ grant, params: [team] }) {
          if (team !== TEAM) return jsonReply(401, { err: "Team not authorized", ECODE: "OAUTH_027" });
          // The webhooks the caller made on the Workspace.
          const webhooks = clickup
            .live()
            .filter((hook) => hook.owner === grant.identity.id)
            .map((hook) => ({ id: hook.id, userid: 183, team_id: Number(TEAM), endpoint: hook.body.endpoint, client_id: "CLIENT", events: hook.body.events, task_id: null, list_id: null, folder_id: null, space_id: null, health: health.get(hook.id) ?? { status: "active", fail_count: 0 }, secret: secrets.get(hook.id) }));
          return jsonReply(200, { webhooks });
        },
      }),
      ...hookRoutes(clickup, {
        methods: ["DELETE"],
        pattern: /^\/api\/api\/v2\/webhook\/([^/]+)$/,
        authorized: grantOf,
        unauthorized: () => jsonReply(401, { err: "Token invalid", ECODE: "OAUTH_025" }),
        handle({ params: [id] }) {
          if (!clickup.hooks.delete(id)) return jsonReply(404, { err: "Webhook not found" });
          return jsonReply(200, {});
        },
      }),
    ],
  });
  app = await startTestApp(fake.env(), { clock });
  ada = await createOperator(app);
  const triggers = ["task_created", "task_comment_posted"].map((trigger) => ({ connector: "clickup", trigger }));
  await listTriggers(app, ada, triggers);
  const account = await connectAccount(app, ada, { connector: "clickup", account: "alice", provider: fake, params: { team_id: TEAM } });
  accountId = account.id;
  externalId = account.externalId;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const taskCreated = (webhookId: string) =>
  JSON.stringify({ event: "taskCreated", history_items: [{ id: randomUUID(), date: String(Date.now()), user: { id: 999, username: "Someone Else" } }], task_id: "86a1b2c3", webhook_id: webhookId });
const sign = (body: string, secret: string) => createHmac("sha256", secret).update(body).digest("hex");
const deliver = (url: string, body: string, signature?: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(signature ? { "x-signature": signature } : {}) }, body });
const clickupEvents = () => storedEvents(app, ada, "clickup");

describe("a ClickUp connection naming its Workspace", () => {
  test("gets one webhook on the Workspace, made with the account's token, for the listed triggers' events", async () => {
    await app.app.subscriptions.runOnce(true);
    expect(await accountSubscriptions(app, ada, accountId)).toMatchObject([{ lastError: null }]);
    expect(clickup.live()).toHaveLength(1);
    const [hook] = clickup.live();
    expect(hook.owner).toBe(externalId);
    expect([...hook.body.events].sort()).toEqual(["taskCommentPosted", "taskCreated"]);
    expect(hook.body.endpoint).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/clickup\\?subscription=psub_`));
    const [sub] = await accountSubscriptions(app, ada, accountId);
    expect(sub).toMatchObject({ status: "ACTIVE", resource: `team/${TEAM}`, providerId: hook.id });
  });

  test("an event signed with the webhook's own secret is forwarded, whoever made the change; forged ones are refused", async () => {
    const [hook] = clickup.live();
    const body = taskCreated(hook.id);
    expect((await deliver(hook.body.endpoint, body, sign(body, secrets.get(hook.id)!))).status).toBe(200);
    expect((await clickupEvents()).map((e) => [e.trigger, e.account])).toEqual([["task_created", "alice"]]);
    const other = taskCreated(hook.id);
    for (const signature of [sign(other, "not-the-webhook-secret"), sign(body, secrets.get(hook.id)!), undefined]) expect((await deliver(hook.body.endpoint, other, signature)).status).toBe(401);
    expect(await clickupEvents()).toHaveLength(1);
  });

  test("a webhook deleted at ClickUp is noticed by the next check (the Workspace's list) and made again", async () => {
    const [old] = clickup.live();
    clickup.hooks.delete(old.id);
    clock.advance(CHECK_MS - 60_000);
    await app.app.subscriptions.runOnce(true);
    expect(clickup.live()).toHaveLength(0);
    clock.advance(2 * 60_000);
    await app.app.subscriptions.runOnce(true);
    expect(clickup.made("GET").map((c) => [c.path, c.owner])).toEqual([[`/api/api/v2/team/${TEAM}/webhook`, externalId]]);
    const [hook] = clickup.live();
    expect(hook.id).not.toBe(old.id);
    expect([...hook.body.events].sort()).toEqual(["taskCommentPosted", "taskCreated"]);
    expect(await accountSubscriptions(app, ada, accountId)).toMatchObject([{ status: "ACTIVE", providerId: hook.id, lastError: null }]);
    const body = taskCreated(hook.id);
    expect((await deliver(hook.body.endpoint, body, sign(body, secrets.get(hook.id)!))).status).toBe(200);
  });

  test("a failing webhook is kept (ClickUp still sends to it); a suspended one is made again and the suspended one deleted", async () => {
    const [first] = clickup.live();
    health.set(first.id, { status: "failing", fail_count: 3 });
    clock.advance(CHECK_MS + 60_000);
    await app.app.subscriptions.runOnce(true);
    expect(clickup.live().map((h) => h.id)).toEqual([first.id]);

    health.set(first.id, { status: "suspended", fail_count: 100 });
    clock.advance(CHECK_MS + 60_000);
    await app.app.subscriptions.runOnce(true);
    const [hook] = clickup.live();
    expect(hook.id).not.toBe(first.id);
    expect(clickup.made("DELETE").map((c) => c.path)).toEqual([`/api/api/v2/webhook/${first.id}`]);
    expect(await accountSubscriptions(app, ada, accountId)).toMatchObject([{ status: "ACTIVE", providerId: hook.id, lastError: null }]);
  });

  test("deleted at ClickUp on disconnect, with the account's token", async () => {
    const [hook] = clickup.live();
    await disconnect(app, ada, accountId);
    expect(clickup.made("DELETE").slice(-1).map((c) => [c.path, c.owner])).toEqual([[`/api/api/v2/webhook/${hook.id}`, externalId]]);
    expect(clickup.live()).toHaveLength(0);
  });
});
