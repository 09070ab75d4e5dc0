/**
 * BambooHR's permissioned webhooks, end to end against a fake that follows its API
 * (https://documentation.bamboohr.com/docs/permissioned-webhooks,
 * https://documentation.bamboohr.com/reference/post-webhook, https://documentation.bamboohr.com/docs/webhooks#security):
 * the API key (HTTP Basic user name, any password) makes one webhook per connection
 * (`POST /v1/webhooks` with name, url, format, events, monitorFields, postFields); BambooHR answers
 * the webhook's `privateKey` once. Deliveries carry `X-BambooHR-Timestamp` and `X-BambooHR-Signature`:
 * hex HMAC-SHA256 of the body followed by the timestamp, keyed with that private key. A wrong key,
 * an altered body or timestamp, a missing header or a stale timestamp is refused; a disconnect
 * deletes the webhook (`DELETE /v1/webhooks/{id}`).
 */
import { createHmac, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { fakeClock } from "../helpers/clock.ts";
import { startCredentialedProvider, type FakeCredentialedProvider } from "../helpers/fakeProviders/credentialed.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, connectWithCredentials, storedEvents, disconnect, listTriggers } from "./helpers.ts";

const def = findConnector("bamboohr")!;
const clock = fakeClock(new Date());

interface BambooWebhook {
  id: number;
  body: Record<string, any>;
  privateKey: string;
}
const webhooks = new Map<number, BambooWebhook>();
const deletes: number[] = [];
let nextId = 1;

let fake: FakeCredentialedProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;

beforeAll(async () => {
  fake = await startCredentialedProvider(def, {
    routes: [
      ({ method, path, body }) => {
        if (method !== "POST" || path !== "/webhooks") return undefined;
        const b = (body ?? {}) as Record<string, any>;
        if (typeof b.name !== "string" || typeof b.url !== "string" || !["json", "form-encoded"].includes(b.format)) return { status: 400, body: { error: "name, url and format are required" } };
        if (Array.isArray(b.events) && b.events.includes("employee.updated") && !(Array.isArray(b.monitorFields) && b.monitorFields.length)) {
          return { status: 400, body: { error: "monitorFields is required for employee.updated" } };
        }
        const hook = { id: nextId++, body: b, privateKey: randomBytes(32).toString("hex") };
        webhooks.set(hook.id, hook);
        return { status: 201, body: { id: hook.id, name: b.name, created: clock.now().toISOString(), lastSent: null, monitorFields: b.monitorFields, postFields: b.postFields, url: b.url, format: b.format, privateKey: hook.privateKey } };
      },
      ({ method, path }) => {
        const match = method === "DELETE" ? /^\/webhooks\/(\d+)$/.exec(path) : null;
        if (!match) return undefined;
        deletes.push(Number(match[1]));
        return webhooks.delete(Number(match[1])) ? { status: 200, body: {} } : { status: 404, body: { error: "Webhook not found" } };
      },
    ],
  });
  app = await startTestApp(fake.env(), { clock });
  ada = await createOperator(app);
  const triggers = def.triggers.map((t) => ({ connector: "bamboohr", trigger: t.name }));
  await listTriggers(app, ada, triggers);
  accountId = (await connectWithCredentials(app, ada, def, "alice", fake.fields)).id;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const seconds = () => String(Math.floor(clock.now().getTime() / 1000));
const signed = (body: string, key: string, timestamp = seconds()) => ({
  "x-bamboohr-timestamp": timestamp,
  "x-bamboohr-signature": createHmac("sha256", key).update(body + timestamp).digest("hex"),
});
const deliver = (url: string, body: string, headers: Record<string, string>) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }).then(async (r) => ({ status: r.status, body: await r.json() }));
const bambooEvents = () => storedEvents(app, ada, "bamboohr");

describe("a connected BambooHR company with the employee triggers listed", () => {
  test("gets one webhook made with the key, at its subscription's own URL, with the listed events; the private key BambooHR answers is kept, never shown", async () => {
    await app.app.subscriptions.runOnce(true);
    expect(webhooks.size).toBe(1);
    const [hook] = webhooks.values();
    expect(hook.body.url).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/bamboohr\\?subscription=psub_`));
    expect([...hook.body.events].sort()).toEqual(["employee.created", "employee.deleted", "employee.updated"]);
    expect(hook.body.format).toBe("json");
    expect(fake.requests.find((r) => r.method === "POST" && r.path.endsWith("/webhooks"))?.authorized).toBe(true);
    const subs = await accountSubscriptions(app, ada, accountId);
    expect(subs).toMatchObject([{ status: "ACTIVE", providerId: String(hook.id), lastError: null }]);
    expect(JSON.stringify(subs)).not.toContain(hook.privateKey);
  });

  test("each event, signed over body + timestamp with the private key, is the account's event once", async () => {
    const [hook] = webhooks.values();
    for (const trigger of def.triggers) {
      const body = JSON.stringify(trigger.samplePayload);
      const answer = await deliver(hook.body.url, body, signed(body, hook.privateKey));
      expect(answer, trigger.name).toMatchObject({ status: 200, body: { recorded: 1 } });
    }
    const stored = await bambooEvents();
    expect(stored.map((e) => e.trigger).sort()).toEqual(["employee_created", "employee_deleted", "employee_updated"]);
    expect(stored.every((e) => e.account === "alice")).toBe(true);
    expect(stored.find((e) => e.trigger === "employee_updated")!.payload).toEqual(def.triggers.find((t) => t.name === "employee_updated")!.samplePayload);
  });

  test("a wrong key, an altered body or timestamp, a missing header, a stale timestamp or another subscription's URL is refused", async () => {
    const [hook] = webhooks.values();
    const before = (await bambooEvents()).length;
    const body = JSON.stringify({ ...(def.triggers[0].samplePayload as object), id: "forged-1" });
    const good = signed(body, hook.privateKey);
    const stale = String(Number(seconds()) - 10 * 60);
    const forged: Array<[string, string, Record<string, string>, string?]> = [
      ["wrong key", body, signed(body, randomBytes(32).toString("hex"))],
      ["altered body", body.replace("Charlotte", "Mallory"), good],
      ["altered timestamp", body, { ...good, "x-bamboohr-timestamp": String(Number(good["x-bamboohr-timestamp"]) + 1) }],
      ["missing signature", body, { "x-bamboohr-timestamp": good["x-bamboohr-timestamp"] }],
      ["missing timestamp", body, { "x-bamboohr-signature": good["x-bamboohr-signature"] }],
      ["stale timestamp, correctly signed", body, signed(body, hook.privateKey, stale)],
      ["another subscription's URL", body, good, hook.body.url.replace(/subscription=[^&]+/, "subscription=psub_unknown")],
    ];
    for (const [what, payload, headers, url] of forged) {
      const answer = await deliver(url ?? hook.body.url, payload, headers);
      expect(answer.status, what).toBe(401);
      expect(answer.body.code, what).toBe("invalid_signature");
    }
    expect(await bambooEvents()).toHaveLength(before);
  });

  test("a delivery signed 4 minutes ago is still accepted (the 5-minute window)", async () => {
    const [hook] = webhooks.values();
    const body = JSON.stringify({ ...(def.triggers[1].samplePayload as object), id: "late-1" });
    const headers = signed(body, hook.privateKey);
    clock.advance(4 * 60_000);
    expect((await deliver(hook.body.url, body, headers)).status).toBe(200);
  });

  test("a disconnect deletes the webhook at BambooHR", async () => {
    const [hook] = webhooks.values();
    await disconnect(app, ada, accountId);
    expect(deletes).toEqual([hook.id]);
    expect(webhooks.size).toBe(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
