/**
 * Trello's webhooks, end to end against a fake that follows its documented protocol
 * (developer.atlassian.com/cloud/trello/guides/rest-api/webhooks/, …/authorization/): the end user
 * pastes the Power-Up's API key and the token Trello's authorize page showed; every call carries
 * `Authorization: OAuth oauth_consumer_key="…", oauth_token="…"`. `POST /1/webhooks` first sends
 * a HEAD to the callbackURL and creates the webhook only when it answers 200; deliveries are
 * `{action, model}` signed `X-Trello-Webhook: base64(HMAC-SHA1(app secret, body + callbackURL))`.
 */
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { startCredentialedProvider, type FakeCredentialedProvider } from "../helpers/fakeProviders/credentialed.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers, connectWithCredentials } from "./helpers.ts";

const APP_SECRET = "d1f0c3b2a59e8f7d6c5b4a3928170f6e5d4c3b2a1908f7e6d5c4b3a291807f6e";
const MEMBER = "5e8a3c2b1f0d4a0012345678";
const BOARD = "5f1b2c3d4e5f6a7b8c9d0e1f";
const trello = findConnector("trello")!;

interface TrelloWebhook {
  id: string;
  callbackURL: string;
  idModel: string;
  description: string;
}
const webhooks = new Map<string, TrelloWebhook>();
const heads: number[] = [];
const deletes: string[] = [];
let nextId = 1;

let fake: FakeCredentialedProvider;
let app: TestApp;
let ada: Operator;

beforeAll(async () => {
  fake = await startCredentialedProvider(trello, {
    identityId: MEMBER,
    routes: [
      async ({ method, path, body }) => {
        if (method !== "POST" || path !== "/webhooks") return undefined;
        const { callbackURL, idModel, description } = body as Record<string, string>;
        if (!callbackURL || !idModel) return { status: 400, body: { message: "invalid value for callbackURL or idModel" } };
        // Trello checks the URL with a HEAD before it creates anything.
        const head = await fetch(callbackURL, { method: "HEAD" });
        heads.push(head.status);
        if (head.status !== 200) return { status: 400, body: { message: `URL (${callbackURL}) did not return 200 status code, got ${head.status}` } };
        const id = `65c0000000000000000000${String(nextId++).padStart(2, "0")}`;
        webhooks.set(id, { id, callbackURL, idModel, description });
        return { status: 200, body: { id, description, idModel, callbackURL, active: true, consecutiveFailures: 0 } };
      },
      ({ method, path }) => {
        const match = /^\/webhooks\/([0-9a-f]{24})$/.exec(path);
        if (!match || (method !== "DELETE" && method !== "GET")) return undefined;
        const hook = webhooks.get(match[1]);
        if (method === "DELETE") deletes.push(match[1]);
        if (!hook) return { status: 404, body: { message: "The requested resource was not found." } };
        if (method === "DELETE") webhooks.delete(match[1]);
        return { status: 200, body: method === "DELETE" ? { _value: null } : { ...hook, active: true } };
      },
    ],
  });
  app = await startTestApp({ ...fake.env(), CONNECTOR_TRELLO_WEBHOOK_SECRET: APP_SECRET });
  ada = await createOperator(app, "Ada");
  const triggers = ["card_created", "card_moved", "card_updated", "comment_added"].map((trigger) => ({ connector: "trello", trigger }));
  await listTriggers(app, ada, triggers);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const sign = (body: string, callbackURL: string, secret = APP_SECRET) => createHmac("sha1", secret).update(body + callbackURL).digest("base64");
const deliver = (hook: TrelloWebhook, body: string, signature: string | undefined, url = hook.callbackURL) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(signature ? { "x-trello-webhook": signature } : {}) }, body });
const sample = (trigger: string) => JSON.stringify(trello.triggers.find((t) => t.name === trigger)!.samplePayload);
const trelloEvents = () => storedEvents(app, ada, "trello");

describe("a Trello member connected with a board and the card triggers listed", () => {
  let accountId: string;

  test("the key and token are checked with Trello in its OAuth header; a webhook on the board is made after the HEAD check", async () => {
    accountId = (await connectWithCredentials(app, ada, trello, "alice", fake.fields, { board: BOARD })).id;
    const check = fake.requests.find((r) => r.path === "/members/me")!;
    expect(check.headers.authorization).toBe(`OAuth oauth_consumer_key="${fake.fields.api_key}", oauth_token="${fake.fields.token}"`);
    expect(fake.requests.every((r) => !r.path.includes(fake.fields.token))).toBe(true);

    await app.app.subscriptions.runOnce(true);
    expect(heads).toEqual([200]);
    expect(webhooks.size).toBe(1);
    const [hook] = webhooks.values();
    expect(hook.idModel).toBe(BOARD);
    expect(hook.callbackURL.startsWith(`${app.url}/webhooks/${ada.deploymentId}/trello?subscription=`)).toBe(true);
    const [row] = await accountSubscriptions(app, ada, accountId);
    expect(row).toMatchObject({ status: "ACTIVE", providerId: hook.id, lastError: null });
  });

  test("signed actions become card_created, card_moved, card_updated and comment_added for the account; other actions are dropped", async () => {
    const [hook] = webhooks.values();
    for (const trigger of ["card_created", "card_moved", "card_updated", "comment_added"]) {
      const body = sample(trigger);
      const response = await deliver(hook, body, sign(body, hook.callbackURL));
      expect(response.status, trigger).toBe(200);
    }
    const other = JSON.stringify({ action: { id: "61a0000000000000000000b9", idMemberCreator: "someone", type: "addMemberToCard", date: "2026-01-01T14:00:00.000Z", data: {} }, model: { id: BOARD } });
    expect((await deliver(hook, other, sign(other, hook.callbackURL))).status).toBe(200);
    const stored = await trelloEvents();
    expect(stored.map((e) => e.trigger).sort()).toEqual(["card_created", "card_moved", "card_updated", "comment_added"]);
    expect(stored.every((e) => e.account === "alice")).toBe(true);
    // Trello retrying the same action forwards nothing twice.
    const again = sample("card_moved");
    expect((await deliver(hook, again, sign(again, hook.callbackURL))).status).toBe(200);
    expect(await trelloEvents()).toHaveLength(4);
  });

  test("forged deliveries are refused: another secret, the body signed without the callback URL, no signature", async () => {
    const [hook] = webhooks.values();
    const body = JSON.stringify({ ...JSON.parse(sample("card_created")), action: { ...JSON.parse(sample("card_created")).action, id: "61a0000000000000000000c1" } });
    const forged: Array<[string, string | undefined]> = [
      ["another secret", sign(body, hook.callbackURL, "not-the-power-up-secret")],
      ["body only", createHmac("sha1", APP_SECRET).update(body).digest("base64")],
      ["no signature", undefined],
    ];
    for (const [what, signature] of forged) {
      const response = await deliver(hook, body, signature);
      expect(response.status, what).toBe(401);
      expect((await response.json()).code, what).toBe("invalid_signature");
    }
    expect(await trelloEvents()).toHaveLength(4);
  });

  test("deleted at Trello on disconnect; connected again without a board, the webhook watches the member", async () => {
    const [hook] = webhooks.values();
    await disconnect(app, ada, accountId);
    expect(deletes).toEqual([hook.id]);
    expect(webhooks.size).toBe(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);

    await connectWithCredentials(app, ada, trello, "alice-everywhere", fake.fields, {});
    await app.app.subscriptions.runOnce(true);
    expect([...webhooks.values()].map((h) => h.idModel)).toEqual([MEMBER]);
  });
});

describe("two connections watching one board", () => {
  test("an action Trello delivers to both connections' webhooks is each connection's event, once each", async () => {
    await connectWithCredentials(app, ada, trello, "carol", fake.fields, { board: BOARD });
    await connectWithCredentials(app, ada, trello, "dave", fake.fields, { board: BOARD });
    await app.app.subscriptions.runOnce(true);
    const boardHooks = [...webhooks.values()].filter((h) => h.idModel === BOARD);
    expect(boardHooks).toHaveLength(2);

    const created = JSON.parse(sample("card_created"));
    const body = JSON.stringify({ ...created, action: { ...created.action, id: "61a0000000000000000000d1" } });
    // Trello sends the action to every webhook on the board, and retries one of them.
    for (const hook of [...boardHooks, boardHooks[0]]) expect((await deliver(hook, body, sign(body, hook.callbackURL))).status).toBe(200);
    const theirs = (await trelloEvents()).filter((e) => e.account === "carol" || e.account === "dave").map((e) => [e.account, e.trigger]);
    expect(theirs.sort()).toEqual([
      ["carol", "card_created"],
      ["dave", "card_created"],
    ]);
  });
});
