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
 * answered `{data: {webhooks: [...]}}`), and one no longer listed is made again
 * (remadeWhenGone.test.ts). The fake of the API is in ./hookApis.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks } from "./fakeHooks.ts";
import { MONDAY_BOARD as BOARD, type MondayBoard, mondayDeliver as deliver, mondayHookApi, mondayItemCreated as created, mondayJwt } from "./hookApis.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers, expectParamRefused } from "./helpers.ts";

const SIGNING_SECRET = "monday-app-signing-secret";
const monday = fakeHooks();
const board: MondayBoard = { challenges: [], listErrors: false };
const CHECK_MS = 6 * 60 * 60 * 1000;
const clock = fakeClock(new Date());

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let externalId: string;

beforeAll(async () => {
  fake = await startDeclaredProvider(findConnector("monday")!, { before: mondayHookApi(monday, board) });
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

/** The token monday puts in Authorization, issued now on the app's clock. */
const jwt = (secret: string, claims?: Record<string, unknown>) => mondayJwt(secret, clock.now(), claims);
const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);
const hookFor = (event: string) => monday.live().find((h) => h.body.variables.event === event)!;
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
    expect(board.challenges).toHaveLength(2);
    for (const c of board.challenges) expect([c.status, c.answered]).toEqual([200, { challenge: c.sent }]);
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

  test("a check answered with GraphQL errors (status 200) is a failure with monday's message: nothing is made again", async () => {
    const ids = monday.live().map((h) => h.id).sort();
    const creates = monday.calls.filter((c) => String(c.body.query).includes("create_webhook")).length;
    board.listErrors = true;
    clock.advance(CHECK_MS + 60_000);
    await app.app.subscriptions.runOnce(true);
    expect(monday.live().map((h) => h.id).sort()).toEqual(ids);
    expect(monday.calls.filter((c) => String(c.body.query).includes("create_webhook"))).toHaveLength(creates);
    for (const sub of await accountSubscriptions(app, ada, accountId)) {
      expect(sub.providerId).not.toBeNull();
      expect(sub.lastError).toMatch(/answered errors: Internal server error/);
    }
    // Answered again: the retry finds both webhooks listed.
    board.listErrors = false;
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
