/**
 * monday.com board webhooks, end to end against a fake that follows monday's GraphQL API
 * (developer.monday.com/api-reference/reference/webhooks): a connection names its board
 * (`params[board_id]`); Switchyard makes one webhook per listed event type with the account's
 * token (`create_webhook(board_id, url, event)` at `POST /v2`, answered `{data: {create_webhook:
 * {id board_id}}}`), and deletes them on disconnect (`delete_webhook(id)`). GraphQL answers 200
 * with `errors` when a mutation fails. While `create_webhook` runs, monday POSTs
 * `{"challenge": "…"}` to the URL and expects the same JSON back, else no webhook is made.
 * Deliveries made with an app's token carry `Authorization: <JWT>` (no "Bearer "), HS256 with the
 * app's Signing Secret: the connector's webhook secret. monday's webhooks do not expire: every 6 hours
 * the board's webhooks are listed (`query { webhooks(board_id) { id event board_id config } }`,
 * answered `{data: {webhooks: [...]}}`), and one no longer listed is made again.
 */
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { type FakeRequest, jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks } from "./fakeHooks.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers, expectParamRefused } from "./helpers.ts";

const BOARD = "1234567890";
const SIGNING_SECRET = "monday-app-signing-secret";
const EVENTS = ["change_column_value", "change_status_column_value", "change_name", "create_item", "item_archived", "item_deleted", "create_update", "edit_update", "delete_update"];
const monday = fakeHooks();
const challenges: Array<{ sent: string; answered: unknown; status: number }> = [];
const CHECK_MS = 6 * 60 * 60 * 1000;
const clock = fakeClock(new Date());
/** When set, the board's webhooks are answered with GraphQL errors (status 200), as monday answers a failing query. */
let listErrors = false;
const graphqlError = (message: string) => jsonReply(200, { errors: [{ message, locations: [{ line: 1, column: 1 }], extensions: { code: "InvalidBoardIdException" } }], account_id: 4242 });

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let externalId: string;

const query = (req: FakeRequest) => {
  try {
    return String((JSON.parse(req.rawBody.toString()) as { query?: unknown }).query ?? "");
  } catch {
    return "";
  }
};

beforeAll(async () => {
  fake = await startDeclaredProvider(findConnector("monday")!, {
    before: [
      {
        method: "POST",
        path: "/api/v2",
        when: (req) => /create_webhook|delete_webhook|webhooks \(board_id/.test(query(req)),
        async handle(req, ctx) {
          const grant = ctx.authenticate(req);
          const body = monday.record(req, grant);
          if (!grant) return jsonReply(401, { errors: [{ message: "Not Authenticated", extensions: { code: "UNAUTHENTICATED" } }] });
          const vars = body.variables ?? {};
          if (/^query .*webhooks \(board_id: \$board\)/.test(query(req))) {
            if (listErrors) return graphqlError("Internal server error");
            if (String(vars.board) !== BOARD) return graphqlError("Board not found");
            // The board's webhooks, as monday lists them: ids as strings, the event type, the board, the config (JSON string or null).
            const webhooks = monday.live().filter((h) => h.body.variables.board === BOARD).map((h) => ({ id: h.id, event: h.body.variables.event, board_id: BOARD, config: null }));
            return jsonReply(200, { data: { webhooks }, account_id: 4242 });
          }
          if (query(req).includes("delete_webhook")) {
            const hook = monday.hooks.get(String(vars.id));
            if (!hook) return graphqlError("Webhook not found");
            monday.hooks.delete(hook.id);
            return jsonReply(200, { data: { delete_webhook: { id: hook.id, board_id: hook.body.variables.board } }, account_id: 4242 });
          }
          if (!EVENTS.includes(vars.event) || typeof vars.url !== "string") return graphqlError("Invalid argument");
          if (vars.board !== BOARD) return graphqlError("Board not found");
          // The URL is verified while the mutation runs: the challenge must come back as sent.
          const sent = randomBytes(24).toString("base64url");
          const answer = await fetch(vars.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ challenge: sent }) });
          const answered = await answer.json().catch(() => null);
          challenges.push({ sent, answered, status: answer.status });
          if (answer.status !== 200 || (answered as { challenge?: string })?.challenge !== sent) return graphqlError("Failed to verify the url");
          const hook = monday.add(grant.identity.id, body);
          return jsonReply(200, { data: { create_webhook: { id: hook.id, board_id: Number(BOARD) } }, account_id: 4242 });
        },
      },
    ],
  });
  app = await startTestApp({ ...fake.env(), CONNECTOR_MONDAY_WEBHOOK_SECRET: SIGNING_SECRET }, { clock });
  ada = await createOperator(app);
  await listTriggers(app, ada, ["item_created", "column_value_changed"].map((trigger) => ({ connector: "monday", trigger })));
  const account = await connectAccount(app, ada, { connector: "monday", account: "alice", provider: fake, params: { board_id: BOARD } });
  accountId = account.id;
  externalId = account.externalId;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
/** The token monday puts in Authorization: an HS256 JWT signed with the app's Signing Secret. */
const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);
function jwt(secret: string, claims: Record<string, unknown> = { accountId: 4242, userId: 55512345, aud: "https://example.com", exp: nowSeconds() + 60, iat: nowSeconds() }) {
  const unsigned = `${b64({ alg: "HS256", typ: "JWT" })}.${b64(claims)}`;
  return `${unsigned}.${createHmac("sha256", secret).update(unsigned).digest("base64url")}`;
}
const hookFor = (event: string) => monday.live().find((h) => h.body.variables.event === event)!;
const created = () =>
  JSON.stringify({
    event: {
      app: "monday",
      type: "create_pulse",
      triggerTime: new Date().toISOString(),
      subscriptionId: 73759690,
      // Someone else on the board added it.
      userId: 99999,
      originalTriggerUuid: null,
      boardId: Number(BOARD),
      pulseId: 9876543210,
      pulseName: "Write the release notes",
      groupId: "topics",
      groupName: "This week",
      groupColor: "#579bfc",
      isTopGroup: true,
      columnValues: {},
      triggerUuid: randomUUID().replaceAll("-", ""),
    },
  });
const deliver = (url: string, body: string, authorization?: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(authorization === undefined ? {} : { authorization }) }, body }).then((r) => r.status);
const mondayEvents = () => storedEvents(app, ada, "monday");

describe("a monday.com connection naming its board", () => {
  test("the board id is a resource parameter: optional at connect (it names the first watched resource), digits only", async () => {
    await expectParamRefused(app, ada.apiKey, "monday", "board_id", ["launch-plan", "12 34"]);
  });

  test("gets one board webhook per listed event type, made with the account's token once monday's challenge is answered", async () => {
    await app.app.subscriptions.runOnce(true);
    const subs = await accountSubscriptions(app, ada, accountId);
    expect(subs.map((s) => [s.resource, s.status, s.lastError]).sort()).toEqual([
      [`boards/${BOARD}/change_column_value`, "ACTIVE", null],
      [`boards/${BOARD}/create_item`, "ACTIVE", null],
    ]);
    expect(monday.live().map((h) => h.body.variables.event).sort()).toEqual(["change_column_value", "create_item"]);
    for (const hook of monday.live()) {
      expect(hook.owner).toBe(externalId);
      expect(hook.body.query).toMatch(/^mutation .*create_webhook \(board_id: \$board, url: \$url, event: \$event\) \{ id board_id \}/);
      expect(hook.body.variables.board).toBe(BOARD);
      expect(hook.body.variables.url).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/monday\\?subscription=psub_`));
    }
    expect(subs.find((s) => s.resource.endsWith("create_item"))?.providerId).toBe(hookFor("create_item").id);
    expect(challenges).toHaveLength(2);
    for (const c of challenges) expect([c.status, c.answered]).toEqual([200, { challenge: c.sent }]);
  });

  test("an event carrying a JWT signed with the app's Signing Secret is forwarded, whoever acted; a Bearer prefix, another secret, none or an expired token is refused", async () => {
    const hook = hookFor("create_item");
    const url = hook.body.variables.url as string;
    const body = created();
    expect(await deliver(url, body, jwt(SIGNING_SECRET))).toBe(200);
    const [event] = await mondayEvents();
    expect(event).toMatchObject({ trigger: "item_created", account: "alice" });
    expect(event.payload).toEqual(JSON.parse(body));
    const expired = jwt(SIGNING_SECRET, { accountId: 4242, exp: nowSeconds() - 3600 });
    for (const authorization of [`Bearer ${jwt(SIGNING_SECRET)}`, jwt("not-the-signing-secret"), undefined, expired, "not.a.jwt"]) {
      expect(await deliver(url, created(), authorization)).toBe(401);
    }
    // The app's key does not open a subscription that does not exist.
    expect(await deliver(url.replace(/subscription=[^&]+/, "subscription=psub_unknown"), created(), jwt(SIGNING_SECRET))).toBe(401);
    expect(await mondayEvents()).toHaveLength(1);
  });

  test("a challenge that is not a token is refused with a 400", async () => {
    const url = hookFor("create_item").body.variables.url as string;
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ challenge: "<script>" }) });
    expect(response.status).toBe(400);
  });

  test("a webhook removed from the board at monday is noticed by the next check (the board's webhooks listed) and made again", async () => {
    const old = hookFor("create_item");
    const kept = hookFor("change_column_value");
    monday.hooks.delete(old.id);
    clock.advance(CHECK_MS - 60_000);
    await app.app.subscriptions.runOnce(true);
    expect(monday.live().map((h) => h.id)).toEqual([kept.id]);
    const before = monday.calls.length;
    clock.advance(2 * 60_000);
    await app.app.subscriptions.runOnce(true);
    const lists = monday.calls.slice(before).filter((c) => /webhooks \(board_id/.test(String(c.body.query)));
    // One look per subscription, with the account's token, naming the connection's board.
    expect(lists.map((c) => [c.path, c.body.variables, c.owner])).toEqual([
      ["/api/v2", { board: BOARD }, externalId],
      ["/api/v2", { board: BOARD }, externalId],
    ]);
    const made = hookFor("create_item");
    expect(made.id).not.toBe(old.id);
    expect(monday.live().map((h) => h.id).sort()).toEqual([kept.id, made.id].sort());
    // Gone at monday: nothing to delete there.
    expect(monday.calls.slice(before).filter((c) => String(c.body.query).includes("delete_webhook"))).toEqual([]);
    const subs = await accountSubscriptions(app, ada, accountId);
    expect(subs.find((s) => s.resource.endsWith("create_item"))).toMatchObject({ status: "ACTIVE", providerId: made.id, lastError: null });
    expect(subs.find((s) => s.resource.endsWith("change_column_value"))).toMatchObject({ status: "ACTIVE", providerId: kept.id, lastError: null });
    // The new webhook's deliveries are taken as before.
    expect(await deliver(made.body.variables.url as string, created(), jwt(SIGNING_SECRET))).toBe(200);
    expect(await mondayEvents()).toHaveLength(2);
  });

  test("a check answered with GraphQL errors (status 200) is a failure with monday's message: nothing is made again", async () => {
    const ids = monday.live().map((h) => h.id).sort();
    const creates = monday.calls.filter((c) => String(c.body.query).includes("create_webhook")).length;
    listErrors = true;
    clock.advance(CHECK_MS + 60_000);
    await app.app.subscriptions.runOnce(true);
    expect(monday.live().map((h) => h.id).sort()).toEqual(ids);
    expect(monday.calls.filter((c) => String(c.body.query).includes("create_webhook"))).toHaveLength(creates);
    for (const sub of await accountSubscriptions(app, ada, accountId)) {
      expect(sub.providerId).not.toBeNull();
      expect(sub.lastError).toMatch(/answered errors: Internal server error/);
    }
    // Answered again: the retry finds both webhooks listed.
    listErrors = false;
    clock.advance(2 * 60_000);
    await app.app.subscriptions.runOnce(true);
    expect(monday.live().map((h) => h.id).sort()).toEqual(ids);
    expect((await accountSubscriptions(app, ada, accountId)).map((s) => [s.status, s.lastError])).toEqual([
      ["ACTIVE", null],
      ["ACTIVE", null],
    ]);
  });

  test("a board monday does not know: its GraphQL errors (with status 200) are a failure, with monday's message", async () => {
    const bob = await connectAccount(app, ada, { connector: "monday", account: "bob", provider: fake, params: { board_id: "999" } });
    await app.app.subscriptions.runOnce(true);
    const subs = await accountSubscriptions(app, ada, bob.id);
    expect(subs).toHaveLength(2);
    for (const sub of subs) {
      expect(sub.status).toBe("PENDING");
      expect(sub.providerId).toBeNull();
      expect(sub.lastError).toMatch(/answered errors: Board not found/);
    }
    expect(monday.live()).toHaveLength(2);
    await disconnect(app, ada, bob.id);
  });

  test("deleted at monday on disconnect, with the account's token", async () => {
    const ids = monday.live().map((h) => h.id).sort();
    await disconnect(app, ada, accountId);
    const deletes = monday.made("POST").filter((c) => String(c.body.query).includes("delete_webhook"));
    expect(deletes.map((c) => [c.body.variables.id, c.owner]).sort()).toEqual(ids.map((id) => [id, externalId]));
    expect(monday.live()).toHaveLength(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
