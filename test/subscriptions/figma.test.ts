/**
 * Figma webhooks V2, end to end against a fake that follows Figma's API
 * (developers.figma.com/docs/rest-api/webhooks-endpoints/, /webhooks-types/, /webhooks/): a
 * connection names its team (`params[team_id]`); Switchyard adds one team webhook per listed event
 * type with the account's token (`POST /v2/webhooks` `{event_type, context: "team", context_id,
 * endpoint, passcode}`), looks each up (`GET /v2/webhooks/:webhook_id`) and makes it again when
 * Figma answers 404, and deletes them on disconnect. Figma puts the webhook's passcode in every
 * delivery's body; a new webhook is sent a PING first.
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

const TEAM = "1234567890123456789";
const HOUR_MS = 60 * 60_000;
const EVENTS = ["PING", "FILE_UPDATE", "FILE_VERSION_UPDATE", "FILE_DELETE", "LIBRARY_PUBLISH", "FILE_COMMENT", "DEV_MODE_STATUS_UPDATE"];
const clock = fakeClock(new Date());
const figma = fakeHooks();
const failure = (status: number, err: string) => jsonReply(status, { status, err });

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let externalId: string;

beforeAll(async () => {
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
  fake = await startDeclaredProvider(findConnector("figma")!, {
    routes: [
      ...hookRoutes(figma, {
        methods: ["POST"],
        pattern: "/api/v2/webhooks",
        unauthorized: () => failure(403, "Invalid token"),
        handle({ body, grant }) {
          const valid =
            EVENTS.includes(body.event_type) &&
            ["team", "project", "file"].includes(body.context) &&
            typeof body.context_id === "string" &&
            typeof body.endpoint === "string" &&
            typeof body.passcode === "string" &&
            body.passcode.length > 0 &&
            body.passcode.length <= 100;
          if (!valid) return failure(400, "Required parameter missing or invalid");
          // Team webhooks: the team's admins only (the fake's user administers TEAM alone).
          if (body.context !== "team" || body.context_id !== TEAM) return failure(403, "You must be an admin of the team");
          const hook = figma.add(grant.identity.id, body);
          return jsonReply(200, view(hook.id, body, body.passcode));
        },
      }),
      ...hookRoutes(figma, {
        methods: ["GET", "DELETE"],
        pattern: /^\/api\/v2\/webhooks\/([^/]+)$/,
        unauthorized: () => failure(403, "Invalid token"),
        handle({ method, params: [id] }) {
          const hook = figma.hooks.get(id);
          if (!hook) return failure(404, "Webhook does not exist or you do not have permissions to access this webhook");
          if (method === "DELETE") figma.hooks.delete(id);
          // The passcode is never read back: an empty string on GET.
          return jsonReply(200, view(hook.id, hook.body, ""));
        },
      }),
    ],
  });
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
const comment = (webhookId: string, passcode: string | undefined) =>
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
const deliver = (url: string, body: string) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.status);
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

  test("looked up every 6 hours; made again when Figma no longer has it", async () => {
    const before = figma.live().map((h) => h.id).sort();
    clock.advance(6 * HOUR_MS);
    await app.app.subscriptions.runOnce(true);
    expect(figma.made("GET").map((c) => [c.path, c.owner]).sort()).toEqual(before.map((id) => [`/api/v2/webhooks/${id}`, externalId]));
    expect(figma.live().map((h) => h.id).sort()).toEqual(before);

    const gone = hookFor("FILE_COMMENT");
    figma.hooks.delete(gone.id);
    clock.advance(6 * HOUR_MS);
    await app.app.subscriptions.runOnce(true);
    const again = hookFor("FILE_COMMENT");
    expect(again.id).not.toBe(gone.id);
    expect(again.owner).toBe(externalId);
    expect(figma.live()).toHaveLength(2);
    const live = (await accountSubscriptions(app, ada, accountId)).filter((s) => s.status !== "DELETED");
    expect(live.find((s) => s.resource.endsWith("FILE_COMMENT"))).toMatchObject({ status: "ACTIVE", providerId: again.id, lastError: null });
    expect(await deliver(again.body.endpoint, comment(again.id, gone.body.passcode))).toBe(401);
    expect(await deliver(again.body.endpoint, comment(again.id, again.body.passcode))).toBe(200);
  });

  test("deleted at Figma on disconnect, with the account's token", async () => {
    const ids = figma.live().map((h) => h.id).sort();
    await disconnect(app, ada, accountId);
    expect(figma.made("DELETE").map((c) => [c.path, c.owner]).sort()).toEqual(ids.map((id) => [`/api/v2/webhooks/${id}`, externalId]));
    expect(figma.live()).toHaveLength(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
