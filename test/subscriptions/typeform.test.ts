/**
 * Typeform's form webhooks, end to end against a fake that follows its API
 * (typeform.com/developers/webhooks/reference/create-or-update-webhook/): a connection given a
 * `form_id` gets a webhook on that form made with the account's token (`PUT /forms/{form_id}/webhooks/{tag}`
 * with url, enabled and our own secret), deleted with `DELETE` on the same tag when disconnected.
 * Deliveries are signed `Typeform-Signature: sha256=<base64 HMAC-SHA256 of the body>` with that
 * secret (typeform.com/developers/webhooks/secure-your-webhooks/); forged ones are refused.
 * Connections without a form keep only the polled trigger.
 */
import { createHmac, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers } from "./helpers.ts";

const FORM = "lT4Z3j";

interface TypeformWebhook {
  form_id: string;
  tag: string;
  url: string;
  enabled: boolean;
  secret: string;
}
const webhooks = new Map<string, TypeformWebhook>();
const deletes: string[] = [];

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;

beforeAll(async () => {
  fake = await startDeclaredProvider(findConnector("typeform")!, {
    routes: [
      {
        method: "PUT",
        path: /^\/api\/forms\/([A-Za-z0-9]+)\/webhooks\/([A-Za-z0-9_-]+)$/,
        handle(req, ctx, params) {
          if (!ctx.authenticate(req)) return jsonReply(403, { code: "AUTHENTICATION_FAILED", description: "Authentication credentials not found on the Request Headers" });
          const [form_id, tag] = params.slice(-2);
          const body = JSON.parse(req.rawBody.toString()) as Record<string, any>;
          if (!body.url || typeof body.enabled !== "boolean") return jsonReply(400, { code: "VALIDATION_ERROR", description: "url and enabled are required" });
          webhooks.set(`${form_id}/${tag}`, { form_id, tag, url: body.url, enabled: body.enabled, secret: body.secret });
          const now = new Date().toISOString();
          return jsonReply(200, { id: randomUUID().slice(0, 10), form_id, tag, url: body.url, enabled: body.enabled, verify_ssl: body.verify_ssl ?? true, created_at: now, updated_at: now });
        },
      },
      {
        method: "DELETE",
        path: /^\/api\/forms\/([A-Za-z0-9]+)\/webhooks\/([A-Za-z0-9_-]+)$/,
        handle(req, ctx, params) {
          if (!ctx.authenticate(req)) return jsonReply(403, { code: "AUTHENTICATION_FAILED", description: "Authentication credentials not found on the Request Headers" });
          const key = params.slice(-2).join("/");
          deletes.push(key);
          if (!webhooks.delete(key)) return jsonReply(404, { code: "NOT_FOUND", description: "Non existing webhook" });
          return { status: 204, body: "" };
        },
      },
    ],
  });
  app = await startTestApp({ ...fake.env() });
  ada = await createOperator(app);
  const triggers = ["form_response", "form_updated"].map((trigger) => ({ connector: "typeform", trigger }));
  await listTriggers(app, ada, triggers);
  accountId = (await connectAccount(app, ada, { connector: "typeform", account: "alice", provider: fake, params: { form_id: FORM } })).id;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const signed = (body: string, secret: string) => ({ "content-type": "application/json", "typeform-signature": `sha256=${createHmac("sha256", secret).update(body).digest("base64")}` });
const typeformEvents = () => storedEvents(app, ada, "typeform");
const response = () =>
  JSON.stringify({
    event_id: randomUUID(),
    event_type: "form_response",
    form_response: { form_id: FORM, token: randomUUID(), submitted_at: "2026-01-01T10:01:30Z", answers: [{ type: "text", text: "Hello" }] },
  });

describe("a Typeform connection given a form, with form_response listed", () => {
  test("gets an enabled webhook on that form with a secret of its own", async () => {
    await app.app.subscriptions.runOnce(true);
    expect(webhooks.size).toBe(1);
    const [hook] = webhooks.values();
    expect(hook).toMatchObject({ form_id: FORM, enabled: true });
    expect(hook.secret.length).toBeGreaterThanOrEqual(24);
    expect(hook.url.startsWith(`${app.url}/webhooks/${ada.deploymentId}/typeform?subscription=`)).toBe(true);
    const [row] = await accountSubscriptions(app, ada, accountId);
    expect(row).toMatchObject({ status: "ACTIVE", providerId: hook.tag, lastError: null });
  });

  test("a response signed with the webhook's secret is forwarded; forged ones are refused", async () => {
    const [hook] = webhooks.values();
    const body = response();
    expect((await fetch(hook.url, { method: "POST", headers: signed(body, hook.secret), body })).status).toBe(200);
    const events = await typeformEvents();
    expect(events.map((e) => [e.trigger, e.account])).toEqual([["form_response", "alice"]]);
    const other = response();
    for (const headers of [signed(other, "not-the-secret"), { "content-type": "application/json" }]) {
      expect((await fetch(hook.url, { method: "POST", headers, body: other })).status).toBe(401);
    }
    expect(await typeformEvents()).toHaveLength(1);
  });

  test("a connection without a form gets no webhook", async () => {
    await connectAccount(app, ada, { connector: "typeform", account: "bob", provider: fake, params: {} });
    await app.app.subscriptions.runOnce(true);
    expect(webhooks.size).toBe(1);
  });

  test("deleted at Typeform on disconnect", async () => {
    const [hook] = webhooks.values();
    await disconnect(app, ada, accountId);
    expect(deletes).toEqual([`${FORM}/${hook.tag}`]);
    expect(webhooks.size).toBe(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
