/**
 * Pipedrive webhooks v2, end to end against a fake that follows Pipedrive's API
 * (developers.pipedrive.com/docs/api/v1/Webhooks, pipedrive.readme.io/docs/guide-for-webhooks-v2):
 * Switchyard adds one webhook per listed action/object pair with the account's token
 * (`POST /v1/webhooks` `{subscription_url, event_action, event_object, http_auth_user,
 * http_auth_password, version: "2.0"}`), each with its own password, and deletes them
 * (`DELETE /v1/webhooks/{id}`) when a trigger is no longer listed and on disconnect. Pipedrive sends
 * the credentials as `Authorization: Basic base64(user:password)` with every delivery.
 * Pipedrive documents no read of one webhook; every 6 hours the webhooks are listed
 * (`GET /v1/webhooks`: `{success, data:[{id, …, is_active}]}`) and one that is no longer there is
 * added again (remadeWhenGone.test.ts). The fake of the API is in ./hookApis.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks } from "./fakeHooks.ts";
import { basicAuth as basic, pipedriveDeliver as deliver, pipedriveHookApi } from "./hookApis.ts";
import { accountSubscriptions, storedEvents, disconnect } from "./helpers.ts";

const pipedrive = fakeHooks();

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let externalId: string;

beforeAll(async () => {
  fake = await startDeclaredProvider(findConnector("pipedrive")!, { routes: pipedriveHookApi(pipedrive) });
  app = await startTestApp(fake.env());
  ada = await createOperator(app);
  await listTriggers(["deal_created", "deal_changed", "lead_created"]);
  const account = await connectAccount(app, ada, { connector: "pipedrive", account: "alice", provider: fake });
  accountId = account.id;
  externalId = account.externalId;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

async function listTriggers(triggers: string[]) {
  const input = { forwardingUrl: "https://receiver.example.com/hook", triggers: triggers.map((trigger) => ({ connector: "pipedrive", trigger })) };
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input }, { token: ada.token }));
}

const hookFor = (action: string, object: string) => pipedrive.live().find((h) => h.body.event_action === action && h.body.event_object === object)!;
const pipedriveEvents = () => storedEvents(app, ada, "pipedrive");

describe("a connected Pipedrive account with deal and lead triggers listed", () => {
  test("gets one v2 webhook per listed action and object, made with the account's token, each with its own Basic password", async () => {
    await app.app.subscriptions.runOnce(true);
    const subs = await accountSubscriptions(app, ada, accountId);
    expect(subs.map((s) => [s.resource, s.status, s.lastError]).sort()).toEqual([
      ["change.deal", "ACTIVE", null],
      ["create.deal", "ACTIVE", null],
      ["create.lead", "ACTIVE", null],
    ]);
    expect(pipedrive.live().map((h) => `${h.body.event_action}.${h.body.event_object}`).sort()).toEqual(["change.deal", "create.deal", "create.lead"]);
    for (const hook of pipedrive.live()) {
      expect(hook.owner).toBe(externalId);
      expect(hook.body).toMatchObject({ version: "2.0", http_auth_user: "switchyard" });
      expect(hook.body.http_auth_password).toMatch(/^.{24,}$/);
      expect(hook.body.subscription_url).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/pipedrive\\?subscription=psub_`));
    }
    expect(new Set(pipedrive.live().map((h) => h.body.http_auth_password)).size).toBe(3);
  });

  test("a delivery with its webhook's credentials is forwarded, whoever made the change; another webhook's password, another user or none is refused", async () => {
    const created = hookFor("create", "deal");
    expect(await deliver(created.body.subscription_url, "create", "deal", basic("switchyard", created.body.http_auth_password))).toBe(200);
    expect((await pipedriveEvents()).map((e) => [e.trigger, e.account])).toEqual([["deal_created", "alice"]]);
    const forged = [basic("switchyard", hookFor("create", "lead").body.http_auth_password), basic("someone", created.body.http_auth_password), basic("switchyard", "guessed"), undefined];
    for (const authorization of forged) expect(await deliver(created.body.subscription_url, "create", "deal", authorization)).toBe(401);
    expect(await pipedriveEvents()).toHaveLength(1);
  });

  test("a trigger no longer listed has its webhook deleted at Pipedrive; the others stay", async () => {
    const changed = hookFor("change", "deal");
    await listTriggers(["deal_created", "lead_created"]);
    await app.app.subscriptions.runOnce(true);
    expect(pipedrive.made("DELETE").map((c) => [c.path, c.owner])).toEqual([[`/api/v1/webhooks/${changed.id}`, externalId]]);
    expect(pipedrive.live().map((h) => `${h.body.event_action}.${h.body.event_object}`).sort()).toEqual(["create.deal", "create.lead"]);
    // Its credentials no longer open anything.
    expect(await deliver(changed.body.subscription_url, "change", "deal", basic("switchyard", changed.body.http_auth_password))).toBe(401);
  });

  test("deleted at Pipedrive on disconnect, with the account's token", async () => {
    const ids = pipedrive.live().map((h) => h.id).sort();
    await disconnect(app, ada, accountId);
    expect(pipedrive.made("DELETE").slice(1).map((c) => [c.path, c.owner]).sort()).toEqual(ids.map((id) => [`/api/v1/webhooks/${id}`, externalId]));
    expect(pipedrive.live()).toHaveLength(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
