/**
 * Asana's project webhooks, end to end against a fake that follows its documented protocol
 * (developers.asana.com/reference/createwebhook, /docs/webhooks-guide): `POST /webhooks` with the
 * account's token; while that request is in flight Asana POSTs the target once with `X-Hook-Secret`
 * and creates the webhook only if the same header comes back (200 or 204). Deliveries batch events
 * as `{"events":[…]}` signed `X-Hook-Signature: hex HMAC-SHA256(secret, body)` with that secret.
 * Connections without a project param get no webhook; disconnecting deletes it.
 */
import { createHmac, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers } from "./helpers.ts";

const PROJECT = "1209876543210";

interface AsanaWebhook {
  gid: string;
  resource: string;
  target: string;
  filters: unknown;
  secret: string;
}
const webhooks = new Map<string, AsanaWebhook>();
const deletes: string[] = [];
let nextGid = 43214;

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;

beforeAll(async () => {
  fake = await startDeclaredProvider(findConnector("asana")!, {
    routes: [
      {
        method: "POST",
        path: "/api/api/1.0/webhooks",
        async handle(req, ctx) {
          if (!ctx.authenticate(req)) return jsonReply(401, { errors: [{ message: "Not Authorized" }] });
          const data = (JSON.parse(req.rawBody.toString()) as { data?: Record<string, any> }).data ?? {};
          if (!data.resource || !data.target) return jsonReply(400, { errors: [{ message: "resource and target are required" }] });
          // The handshake, in the middle of the create request.
          const secret = randomBytes(32).toString("hex");
          const handshake = await fetch(data.target, { method: "POST", headers: { "x-hook-secret": secret } });
          await handshake.arrayBuffer();
          if (![200, 204].includes(handshake.status) || handshake.headers.get("x-hook-secret") !== secret) {
            return jsonReply(400, { errors: [{ message: "The remote server did not respond with the handshake secret." }] });
          }
          const gid = String(nextGid++);
          webhooks.set(gid, { gid, resource: data.resource, target: data.target, filters: data.filters, secret });
          return jsonReply(201, { data: { gid, resource_type: "webhook", resource: { gid: data.resource, name: "Launch plan" }, target: data.target, active: true } });
        },
      },
      {
        method: "DELETE",
        path: /^\/api\/api\/1\.0\/webhooks\/(\d+)$/,
        handle(req, ctx, params) {
          if (!ctx.authenticate(req)) return jsonReply(401, { errors: [{ message: "Not Authorized" }] });
          const gid = params.find((p) => /^\d+$/.test(p ?? ""))!;
          deletes.push(gid);
          if (!webhooks.delete(gid)) return jsonReply(404, { errors: [{ message: "webhook: Unknown object" }] });
          return jsonReply(200, { data: {} });
        },
      },
    ],
  });
  app = await startTestApp({ ...fake.env() });
  ada = await createOperator(app);
  const triggers = ["task_created", "task_changed", "story_added"].map((trigger) => ({ connector: "asana", trigger }));
  await listTriggers(app, ada, triggers);
  accountId = (await connectAccount(app, ada, { connector: "asana", account: "alice", provider: fake, params: { project: PROJECT } })).id;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const signed = (body: string, secret: string) => ({ "content-type": "application/json", "x-hook-signature": createHmac("sha256", secret).update(body).digest("hex") });
const asanaEvents = () => storedEvents(app, ada, "asana");
const batch = (...events: Array<[string, string, string]>) =>
  JSON.stringify({
    events: events.map(([type, action, gid]) => ({
      user: { gid: "99", resource_type: "user" },
      created_at: "2026-01-01T10:00:00.000Z",
      action,
      resource: { gid, resource_type: type },
      parent: { gid: PROJECT, resource_type: "project" },
    })),
  });

describe("a connected Asana account with a project and task triggers listed", () => {
  test("gets a webhook on the project; the handshake's secret is echoed and kept", async () => {
    await app.app.subscriptions.runOnce(true);
    expect(webhooks.size).toBe(1);
    const [hook] = webhooks.values();
    expect(hook.resource).toBe(PROJECT);
    expect(hook.target.startsWith(`${app.url}/webhooks/${ada.deploymentId}/asana?subscription=`)).toBe(true);
    const [row] = await accountSubscriptions(app, ada, accountId);
    expect(row).toMatchObject({ status: "ACTIVE", providerId: hook.gid, lastError: null });
  });

  test("a second handshake at the same URL is refused: nobody can plant another secret", async () => {
    const [hook] = webhooks.values();
    const res = await fetch(hook.target, { method: "POST", headers: { "x-hook-secret": "an-attackers-secret" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("x-hook-secret")).toBeNull();
  });

  test("a batch signed with the webhook's secret becomes one event per item; forged batches are refused", async () => {
    const [hook] = webhooks.values();
    const body = batch(["task", "added", "1"], ["task", "changed", "1"], ["story", "added", "2"], ["section", "added", "3"]);
    expect((await fetch(hook.target, { method: "POST", headers: signed(body, hook.secret), body })).status).toBe(200);
    // The section event is no listed trigger's; events by another user are still this account's.
    expect((await asanaEvents()).map((e) => e.trigger).sort()).toEqual(["story_added", "task_changed", "task_created"]);
    expect((await asanaEvents()).every((e) => e.account === "alice")).toBe(true);
    // Asana redelivering the same batch forwards nothing twice.
    expect((await fetch(hook.target, { method: "POST", headers: signed(body, hook.secret), body })).status).toBe(200);
    expect(await asanaEvents()).toHaveLength(3);
    const other = batch(["task", "deleted", "1"]);
    for (const headers of [signed(other, "an-attackers-secret"), { "content-type": "application/json" }]) {
      expect((await fetch(hook.target, { method: "POST", headers, body: other })).status).toBe(401);
    }
    expect(await asanaEvents()).toHaveLength(3);
  });

  test("a connection without a project gets no webhook", async () => {
    await connectAccount(app, ada, { connector: "asana", account: "bob", provider: fake, params: {} });
    await app.app.subscriptions.runOnce(true);
    expect(webhooks.size).toBe(1);
  });

  test("deleted at Asana on disconnect", async () => {
    const [hook] = webhooks.values();
    await disconnect(app, ada, accountId);
    expect(deletes).toEqual([hook.gid]);
    expect(webhooks.size).toBe(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
