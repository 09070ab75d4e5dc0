/**
 * ClickUp webhooks, end to end against a fake that follows the API (developer.clickup.com/docs/webhooks,
 * /reference/createwebhook, /reference/deletewebhook): a connection names its Workspace
 * (`params[team_id]`); Switchyard creates a webhook there with the account's token (sent as
 * `Authorization: <token>`, no Bearer) — `POST /team/{team_id}/webhook` with `endpoint` and
 * `events` — keeps the `webhook.secret` ClickUp answers, verifies `X-Signature` (hex HMAC-SHA256 of
 * the body) with it, and deletes the webhook (`DELETE /webhook/{webhook_id}`) on disconnect.
 * ClickUp documents no read of one webhook; every 6 hours the Workspace's webhooks are listed
 * (`GET /team/{team_id}/webhook`, /reference/webhooks-1: `{webhooks:[{id, …, health:{status,
 * fail_count}}]}`, the caller's own): one that is gone (remadeWhenGone.test.ts), or `suspended`
 * (ClickUp sends it nothing more, /docs/webhookhealth), is made again; a `failing` one is kept
 * (ClickUp still sends to it). The fake of the API is in ./hookApis.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { fakeClock } from "../helpers/clock.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks } from "./fakeHooks.ts";
import { CLICKUP_TEAM as TEAM, type ClickUpHealth, clickupDeliver as deliver, clickupHookApi, clickupSign as sign, clickupTaskCreated as taskCreated } from "./hookApis.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers } from "./helpers.ts";

const clickup = fakeHooks();
const health = new Map<string, ClickUpHealth>();
const clock = fakeClock(new Date());
const CHECK_MS = 6 * 60 * 60_000;

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let externalId: string;

beforeAll(async () => {
  fake = await startDeclaredProvider(findConnector("clickup")!, { routes: clickupHookApi(clickup, health) });
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
    expect(await deliver(hook.body.endpoint, body, sign(body, hook.body.secret))).toBe(200);
    expect((await clickupEvents()).map((e) => [e.trigger, e.account])).toEqual([["task_created", "alice"]]);
    const other = taskCreated(hook.id);
    for (const signature of [sign(other, "not-the-webhook-secret"), sign(body, hook.body.secret), undefined]) expect(await deliver(hook.body.endpoint, other, signature)).toBe(401);
    expect(await clickupEvents()).toHaveLength(1);
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
