/**
 * Figma webhooks V2, end to end against a fake that follows Figma's API
 * (developers.figma.com/docs/rest-api/webhooks-endpoints/, /webhooks-types/, /webhooks/): a
 * connection names its team (`params[team_id]`); Switchyard adds one team webhook per listed event
 * type with the account's token (`POST /v2/webhooks` `{event_type, context: "team", context_id,
 * endpoint, passcode}`) and deletes them on disconnect; how each is looked up
 * (`GET /v2/webhooks/:webhook_id`) and made again when Figma answers 404 is in
 * remadeWhenGone.test.ts. Figma puts the webhook's passcode in every delivery's body; a new
 * webhook is sent a PING first.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks } from "./fakeHooks.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers, expectParamRefused } from "./helpers.ts";
import { FIGMA_TEAM as TEAM, figmaComment as comment, figmaDeliver as deliver, figmaHookApi } from "./hookApis.ts";

const clock = fakeClock(new Date());
const figma = fakeHooks();

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let externalId: string;

beforeAll(async () => {
  fake = await startDeclaredProvider(findConnector("figma")!, { routes: figmaHookApi(figma) });
  app = await startTestApp(fake.env(), { clock });
  ada = await createOperator(app);
  const triggers = ["file_comment", "library_publish"].map((trigger) => ({ connector: "figma", trigger }));
  await listTriggers(app, ada, triggers);
  const account = await connectAccount(app, ada, { connector: "figma", account: "alice", provider: fake, params: { team_id: TEAM } });
  accountId = account.id;
  externalId = account.externalId;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const hookFor = (eventType: string) => figma.live().find((h) => h.body.event_type === eventType)!;
const figmaEvents = () => storedEvents(app, ada, "figma");

describe("a Figma connection naming its team", () => {
  test("the team id is a resource parameter: optional at connect (it names the first watched resource), digits only", async () => {
    await expectParamRefused(app, ada.apiKey, "figma", "team_id", ["acme", "12 34"]);
  });

  test("gets one team webhook per listed event type, made with the account's token, each with its own passcode", async () => {
    await app.app.subscriptions.runOnce(true);
    const subs = await accountSubscriptions(app, ada, accountId);
    expect(subs.map((s) => [s.resource, s.status, s.lastError]).sort()).toEqual([
      [`team/${TEAM}/FILE_COMMENT`, "ACTIVE", null],
      [`team/${TEAM}/LIBRARY_PUBLISH`, "ACTIVE", null],
    ]);
    expect(figma.live().map((h) => h.body.event_type).sort()).toEqual(["FILE_COMMENT", "LIBRARY_PUBLISH"]);
    for (const hook of figma.live()) {
      expect(hook.owner).toBe(externalId);
      expect(hook.body).toMatchObject({ context: "team", context_id: TEAM });
      expect(hook.body.endpoint).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/figma\\?subscription=psub_`));
      expect(hook.body.passcode).toMatch(/^.{24,100}$/);
    }
    expect(hookFor("FILE_COMMENT").body.passcode).not.toBe(hookFor("LIBRARY_PUBLISH").body.passcode);
    expect(figma.made("POST").every((c) => c.path === "/api/v2/webhooks")).toBe(true);
  });

  test("an event carrying its webhook's passcode is forwarded without it, whoever acted; another passcode or none is refused", async () => {
    const hook = hookFor("FILE_COMMENT");
    const body = comment(hook.id, hook.body.passcode);
    expect(await deliver(hook.body.endpoint, body)).toBe(200);
    const [event] = await figmaEvents();
    expect(event).toMatchObject({ trigger: "file_comment", account: "alice" });
    const { passcode: _passcode, ...forwarded } = JSON.parse(body);
    expect(event.payload).toEqual(forwarded);
    for (const passcode of [hookFor("LIBRARY_PUBLISH").body.passcode, "guessed", undefined]) expect(await deliver(hook.body.endpoint, comment(hook.id, passcode))).toBe(401);
    expect(await figmaEvents()).toHaveLength(1);
  });

  test("the PING Figma sends a new webhook is answered and stores nothing", async () => {
    const hook = hookFor("LIBRARY_PUBLISH");
    const ping = JSON.stringify({ event_type: "PING", passcode: hook.body.passcode, protocol_version: "2", retries: 0, timestamp: new Date().toISOString(), webhook_id: hook.id });
    expect(await deliver(hook.body.endpoint, ping)).toBe(200);
    expect(await figmaEvents()).toHaveLength(1);
  });

  test("deleted at Figma on disconnect, with the account's token", async () => {
    const ids = figma.live().map((h) => h.id).sort();
    await disconnect(app, ada, accountId);
    expect(figma.made("DELETE").map((c) => [c.path, c.owner]).sort()).toEqual(ids.map((id) => [`/api/v2/webhooks/${id}`, externalId]));
    expect(figma.live()).toHaveLength(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
