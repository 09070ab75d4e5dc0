/**
 * Jira's dynamic webhooks, end to end against a fake that follows the webhooks API of Jira Cloud
 * (developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-webhooks/): one webhook per
 * connection registered on its site (`/ex/jira/{cloudId}/rest/api/3/webhook`) with the account's
 * token, refreshed with `PUT …/webhook/refresh` before the 30-day expiry (a fake clock), deleted
 * with `DELETE …/webhook` on disconnect. Deliveries carry `Authorization: Bearer <JWT>` signed
 * HS256 with the OAuth app's client secret; anything else is refused.
 */
import { createHmac, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { fakeClock } from "../helpers/clock.ts";
import { jiraIssuePayload, startFakeJira, type FakeJira } from "../helpers/fakeProviders/jira.ts";
import { jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers } from "./helpers.ts";

const clock = fakeClock(new Date());
const DAY_MS = 24 * 60 * 60_000;
const CLOUD_ID = "1324a887-45db-1bf4-1e99-ef0ff456d421";

interface DynamicWebhook {
  id: number;
  url: string;
  events: string[];
  jqlFilter: string;
  expirationDate: number;
}
const webhooks = new Map<number, DynamicWebhook>();
const calls: Array<{ method: string; path: string; body: unknown }> = [];
let nextId = 10000;

/** Jira's timestamp format in its webhook answers: 2019-06-01T12:42:30.000+0000. */
const jiraDate = (ms: number) => new Date(ms).toISOString().replace("Z", "+0000");
const PATH = new RegExp(`^/ex/jira/${CLOUD_ID}/rest/api/3/webhook(/refresh)?$`);

let fake: FakeJira;
let app: TestApp;
let ada: Operator;
let accountId: string;

beforeAll(async () => {
  const route = (method: string) => ({
    method,
    path: PATH,
    handle(req: { method: string; path: string; rawBody: Buffer; headers: Record<string, unknown> }, ctx: { authenticate(r: unknown): unknown }) {
      const refresh = req.path.endsWith("/refresh");
      if (!ctx.authenticate(req)) return jsonReply(401, { code: 401, message: "Unauthorized" });
      const body = JSON.parse(req.rawBody.toString() || "{}") as Record<string, any>;
      calls.push({ method: req.method, path: req.path, body });
      if (method === "POST" && !refresh) {
        // Registration answers 200 with one result per webhook asked for.
        const results = (body.webhooks as Array<{ events: string[]; jqlFilter: string }>).map((w) => {
          if (!Array.isArray(w.events) || !w.events.length || typeof w.jqlFilter !== "string") return { errors: ["Invalid webhook"] };
          const id = nextId++;
          webhooks.set(id, { id, url: body.url, events: w.events, jqlFilter: w.jqlFilter, expirationDate: clock.now().getTime() + 30 * DAY_MS });
          return { createdWebhookId: id };
        });
        return jsonReply(200, { webhookRegistrationResult: results });
      }
      if (method === "PUT" && refresh) {
        const ids = body.webhookIds as unknown[];
        if (!ids.every((id) => typeof id === "number")) return jsonReply(400, { errorMessages: ["webhookIds must be numbers"] });
        const expirationDate = clock.now().getTime() + 30 * DAY_MS;
        for (const id of ids) if (webhooks.has(id as number)) webhooks.get(id as number)!.expirationDate = expirationDate;
        return jsonReply(200, { expirationDate: jiraDate(expirationDate) });
      }
      if (method === "DELETE" && !refresh) {
        for (const id of body.webhookIds as number[]) webhooks.delete(id);
        return { status: 202, body: "" };
      }
      return jsonReply(405, {});
    },
  });
  fake = await startFakeJira({ routes: [route("POST"), route("PUT"), route("DELETE")] });
  app = await startTestApp(fake.env(), { clock });
  ada = await createOperator(app);
  const triggers = ["issue_created", "issue_updated"].map((trigger) => ({ connector: "jira", trigger }));
  await listTriggers(app, ada, triggers);
  accountId = (await connectAccount(app, ada, { connector: "jira", account: "alice", provider: fake })).id;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

/** A JWT as Jira signs it for OAuth 2.0 apps: HS256 with the app's client secret. */
function jwt(secret: string, claims: Record<string, unknown> = {}) {
  const head = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");
  const body = Buffer.from(JSON.stringify({ iss: "jira", iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 300, ...claims })).toString("base64url");
  return `${head}.${body}.${createHmac("sha256", secret).update(`${head}.${body}`).digest("base64url")}`;
}

async function deliver(hook: DynamicWebhook, payload: Record<string, unknown>, authorization: string | undefined) {
  const response = await fetch(hook.url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-atlassian-webhook-identifier": randomUUID(), ...(authorization ? { authorization } : {}) },
    body: JSON.stringify(payload),
  });
  return response.status;
}

const live = () => [...webhooks.values()];

/** Weeks of fake time end console sessions (they expire on the same clock): a fresh one. */
async function logInAgain() {
  const { logIn } = ok(await app.gql<{ logIn: { token: string } }, { email: string; password: string }>(`mutation($email: String!, $password: String!) { logIn(email: $email, password: $password) { token } }`, { email: ada.email, password: "correct horse battery" }));
  ada = { ...ada, token: logIn.token };
}
const jiraEvents = () => storedEvents(app, ada, "jira");

describe("a connected Jira account with issue triggers listed", () => {
  test("gets one dynamic webhook on its site, for the listed events, at its subscription's own URL", async () => {
    await app.app.subscriptions.runOnce(true);
    expect(await accountSubscriptions(app, ada, accountId)).toMatchObject([{ lastError: null }]);
    expect(live()).toHaveLength(1);
    const [hook] = live();
    expect(hook.events.sort()).toEqual(["jira:issue_created", "jira:issue_updated"]);
    expect(hook.url).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/jira\\?subscription=psub_`));
    const [sub] = await accountSubscriptions(app, ada, accountId);
    expect(sub).toMatchObject({ status: "ACTIVE", providerId: String(hook.id), events: ["jira:issue_created", "jira:issue_updated"] });
    // The registration answers no expiry: Jira's 30 days from now.
    expect(Date.parse(sub.expiresAt!)).toBe(clock.now().getTime() + 30 * DAY_MS);
  });

  test("a delivery signed with the app's client secret becomes the trigger's event; forged ones are refused", async () => {
    const [hook] = live();
    expect(await deliver(hook, jiraIssuePayload("jira:issue_created", { summary: "Signed" }), `Bearer ${jwt(fake.clientSecret)}`)).toBe(200);
    expect((await jiraEvents()).map((e) => [e.trigger, (e.payload as { issue: { summary: string } }).issue.summary])).toEqual([["issue_created", "Signed"]]);

    const forged = [
      undefined,
      `Bearer ${jwt("not-the-client-secret")}`,
      `Bearer ${jwt(fake.clientSecret).split(".").slice(0, 2).join(".")}.`,
      `Bearer ${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from("{}").toString("base64url")}.`,
      `Bearer ${jwt(fake.clientSecret, { exp: Math.floor(Date.now() / 1000) - 3600 })}`,
    ];
    for (const authorization of forged) expect(await deliver(hook, jiraIssuePayload("jira:issue_updated"), authorization)).toBe(401);
    // A valid token for a subscription that is not this deployment's: refused too.
    expect(await deliver({ ...hook, url: hook.url.replace(/subscription=[^&]+/, "subscription=psub_unknown") }, jiraIssuePayload("jira:issue_updated"), `Bearer ${jwt(fake.clientSecret)}`)).toBe(401);
    expect(await jiraEvents()).toHaveLength(1);
  });

  test("refreshed with PUT …/webhook/refresh when a quarter of the 30 days is left", async () => {
    const [hook] = live();
    clock.advance(20 * DAY_MS);
    await app.app.subscriptions.runOnce(true);
    expect(calls.filter((c) => c.method === "PUT")).toHaveLength(0);
    clock.advance(3 * DAY_MS);
    await app.app.subscriptions.runOnce(true);
    expect(calls.filter((c) => c.method === "PUT").map((c) => c.body)).toEqual([{ webhookIds: [hook.id] }]);
    await logInAgain();
    const [sub] = await accountSubscriptions(app, ada, accountId);
    expect(Date.parse(sub.expiresAt!)).toBe(clock.now().getTime() + 30 * DAY_MS);
    expect(sub.providerId).toBe(String(hook.id));
  });

  test("refreshed again at the next quarter, and a refresh keeps it registered", async () => {
    clock.advance(23 * DAY_MS);
    await app.app.subscriptions.runOnce(true);
    expect(calls.filter((c) => c.method === "PUT")).toHaveLength(2);
    expect(live()).toHaveLength(1);
    await logInAgain();
  });

  test("registered again for the new events when the trigger list changes, the old webhook deleted", async () => {
    const [hook] = live();
    ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: "https://receiver.example.com/hook", triggers: [{ connector: "jira", trigger: "issue_created" }] } }, { token: ada.token }));
    await app.app.subscriptions.runOnce(true);
    expect(live().map((w) => w.events)).toEqual([["jira:issue_created"]]);
    expect(live()[0].id).not.toBe(hook.id);
    expect(calls.filter((c) => c.method === "DELETE").map((c) => c.body)).toEqual([{ webhookIds: [hook.id] }]);
  });

  test("deleted at Jira with DELETE …/webhook on disconnect", async () => {
    const [hook] = live();
    await disconnect(app, ada, accountId);
    expect(calls.filter((c) => c.method === "DELETE").at(-1)?.body).toEqual({ webhookIds: [hook.id] });
    expect(live()).toHaveLength(0);
    const subs = await accountSubscriptions(app, ada, accountId);
    expect(subs.every((s) => s.status === "DELETED")).toBe(true);
  });
});
