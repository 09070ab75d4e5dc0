/**
 * Lever's webhooks, end to end against a fake that follows its API
 * (https://hire.lever.co/developer/documentation#webhooks): one webhook per listed event made with
 * the account's token (`POST /v1/webhooks` `{url, event}`), Lever answering each its own
 * `configuration.signatureToken`; deliveries carry `token`, `triggeredAt` and `signature` (hex
 * HMAC-SHA256 of token + triggeredAt with that webhook's token) in the body. A delivery signed with
 * another webhook's token, or unsigned, is refused; disconnecting deletes the webhooks.
 */
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers } from "./helpers.ts";

interface LeverWebhook {
  id: string;
  url: string;
  event: string;
  signatureToken: string;
}
const webhooks = new Map<string, LeverWebhook>();
const deletes: string[] = [];

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;

beforeAll(async () => {
  fake = await startDeclaredProvider(findConnector("lever")!, {
    routes: [
      {
        method: "POST",
        path: "/api/v1/webhooks",
        handle(req, ctx) {
          if (!ctx.authenticate(req)) return jsonReply(401, { code: "UnauthorizedError", message: "Invalid token" });
          const body = JSON.parse(req.rawBody.toString()) as Record<string, string>;
          if (!body.url?.startsWith("http") || !body.event) return jsonReply(400, { code: "BadRequestError", message: "url and event are required" });
          const hook = { id: randomUUID(), url: body.url, event: body.event, signatureToken: randomBytes(16).toString("hex") };
          webhooks.set(hook.id, hook);
          return jsonReply(201, { data: { id: hook.id, event: hook.event, url: hook.url, configuration: { conditions: null, signatureToken: hook.signatureToken }, createdAt: Date.now() } });
        },
      },
      {
        method: "DELETE",
        path: /^\/api\/v1\/webhooks\/([0-9a-f-]+)$/,
        handle(req, ctx, [id]) {
          if (!ctx.authenticate(req)) return jsonReply(401, { code: "UnauthorizedError", message: "Invalid token" });
          deletes.push(id);
          return webhooks.delete(id) ? { status: 204, body: "" } : jsonReply(404, { code: "ResourceNotFound", message: "Webhook not found" });
        },
      },
    ],
  });
  app = await startTestApp(fake.env());
  ada = await createOperator(app);
  const triggers = ["candidate_hired", "application_created"].map((trigger) => ({ connector: "lever", trigger }));
  await listTriggers(app, ada, triggers);
  accountId = (await connectAccount(app, ada, { connector: "lever", account: "alice", provider: fake })).id;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

/** A delivery as Lever sends it, signed with `key`. */
function delivery(event: string, key: string) {
  const token = randomBytes(10).toString("hex");
  const triggeredAt = Date.now();
  return JSON.stringify({ triggeredAt, event, token, signature: createHmac("sha256", key).update(`${token}${triggeredAt}`).digest("hex"), data: { opportunityId: randomUUID(), candidateId: randomUUID() } });
}
const send = (url: string, body: string) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.status);
const leverEvents = () => storedEvents(app, ada, "lever");

describe("a connected Lever account with hiring triggers listed", () => {
  test("gets one webhook per listed event, each at its own subscription URL", async () => {
    await app.app.subscriptions.runOnce(true);
    expect([...webhooks.values()].map((w) => w.event).sort()).toEqual(["applicationCreated", "candidateHired"]);
    for (const w of webhooks.values()) expect(w.url).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/lever\\?subscription=`));
    expect((await accountSubscriptions(app, ada, accountId)).map((s) => s.status)).toEqual(["ACTIVE", "ACTIVE"]);
  });

  test("a delivery signed with its webhook's token becomes the trigger's event, the body unchanged as data", async () => {
    const hired = [...webhooks.values()].find((w) => w.event === "candidateHired")!;
    const body = delivery("candidateHired", hired.signatureToken);
    expect(await send(hired.url, body)).toBe(200);
    const [event] = await leverEvents();
    expect(event).toMatchObject({ trigger: "candidate_hired", account: "alice", payload: JSON.parse(body) });
  });

  test("another webhook's token, an altered signature or no signature is refused and stores nothing", async () => {
    const [hired, created] = ["candidateHired", "applicationCreated"].map((e) => [...webhooks.values()].find((w) => w.event === e)!);
    const before = (await leverEvents()).length;
    const forged = delivery("candidateHired", created.signatureToken);
    const unsigned = JSON.stringify({ ...JSON.parse(delivery("candidateHired", hired.signatureToken)), signature: undefined });
    const altered = JSON.stringify({ ...JSON.parse(delivery("candidateHired", hired.signatureToken)), triggeredAt: 1 });
    for (const body of [forged, unsigned, altered]) expect(await send(hired.url, body)).toBe(401);
    expect(await leverEvents()).toHaveLength(before);
  });

  test("disconnecting deletes both webhooks at Lever", async () => {
    const ids = [...webhooks.keys()].sort();
    await disconnect(app, ada, accountId);
    expect([...deletes].sort()).toEqual(ids);
    expect(webhooks.size).toBe(0);
  });
});
