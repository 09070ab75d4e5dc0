/**
 * Box V2 webhooks, end to end against a fake that follows Box's API
 * (developer.box.com/reference/post-webhooks/, /get-webhooks-id/, /delete-webhooks-id/,
 * /guides/webhooks/v2/limitations-v2/): a connection names its folder (`params[folder_id]`, never
 * the root "0"); Switchyard adds a webhook on it with the account's token (`POST /2.0/webhooks`
 * `{target: {id, type: "folder"}, address, triggers}`) and deletes it on disconnect; how it is
 * looked up (`GET /2.0/webhooks/{id}`) and made again when Box answers 404 is in
 * remadeWhenGone.test.ts. Box allows one webhook per
 * item, app and user (a second answers 409). Deliveries are signed with the app's primary and
 * secondary keys (developer.box.com/guides/webhooks/v2/signatures-v2/): base64 HMAC-SHA256 of the
 * body followed by BOX-DELIVERY-TIMESTAMP.
 */
import { createHmac, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks } from "./fakeHooks.ts";
import { accountSubscriptions, storedEvents, disconnect, expectParamRefused } from "./helpers.ts";
import { BOX_FOLDER as FOLDER, boxHookApi } from "./hookApis.ts";

const PRIMARY_KEY = "box-primary-signature-key";
const SECONDARY_KEY = "box-secondary-signature-key";
const clock = fakeClock(new Date());
const box = fakeHooks();

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let externalId: string;

beforeAll(async () => {
  fake = await startDeclaredProvider(findConnector("box")!, { routes: boxHookApi(box) });
  app = await startTestApp({ ...fake.env(), CONNECTOR_BOX_WEBHOOK_SECRET: PRIMARY_KEY }, { clock });
  ada = await createOperator(app);
  await listTriggers(["file_uploaded", "comment_created"]);
  const account = await connectAccount(app, ada, { connector: "box", account: "alice", provider: fake, params: { folder_id: FOLDER } });
  accountId = account.id;
  externalId = account.externalId;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

async function listTriggers(triggers: string[]) {
  const input = { forwardingUrl: "https://receiver.example.com/hook", triggers: triggers.map((trigger) => ({ connector: "box", trigger })) };
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input }, { token: ada.token }));
}

/** A delivery as Box sends it: the primary header under `primary`, the secondary under the app's secondary key. */
function deliver(url: string, trigger: string, primary: string | undefined, timestamp = clock.now().toISOString().replace(/\.\d{3}Z$/, "-00:00")) {
  const body = JSON.stringify({
    type: "webhook_event",
    id: randomUUID(),
    created_at: timestamp,
    trigger,
    webhook: { id: "1", type: "webhook" },
    // Someone other than the connected user acted in the watched folder.
    created_by: { type: "user", id: "99999", name: "A Collaborator", login: "collab@example.com" },
    source: { id: "1634398574321", type: "file", name: "Q1 roadmap.pdf", parent: { type: "folder", id: FOLDER } },
    additional_info: [],
  });
  const sign = (key: string) => createHmac("sha256", key).update(body + timestamp).digest("base64");
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "box-delivery-id": randomUUID(),
    "box-delivery-timestamp": timestamp,
    "box-signature-version": "1",
    "box-signature-algorithm": "HmacSHA256",
    "box-signature-secondary": sign(SECONDARY_KEY),
    ...(primary ? { "box-signature-primary": sign(primary) } : {}),
  };
  return fetch(url, { method: "POST", headers, body }).then((r) => r.status);
}
const boxEvents = () => storedEvents(app, ada, "box");

describe("a Box connection naming its folder", () => {
  test("the folder id is a resource parameter: optional at connect (it names the first watched resource), digits only, and never the root folder 0", async () => {
    await expectParamRefused(app, ada.apiKey, "box", "folder_id", ["0", "All Files", "12a"]);
  });

  test("gets one folder webhook, made with the account's token, for the listed triggers", async () => {
    await app.app.subscriptions.runOnce(true);
    expect(await accountSubscriptions(app, ada, accountId)).toMatchObject([{ lastError: null }]);
    expect(box.live()).toHaveLength(1);
    const [hook] = box.live();
    expect(hook.owner).toBe(externalId);
    expect(hook.body.target).toEqual({ id: FOLDER, type: "folder" });
    expect([...hook.body.triggers].sort()).toEqual(["COMMENT.CREATED", "FILE.UPLOADED"]);
    expect(hook.body.address).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/box\\?subscription=psub_`));
    const [sub] = await accountSubscriptions(app, ada, accountId);
    expect(sub).toMatchObject({ status: "ACTIVE", resource: `folders/${FOLDER}`, providerId: hook.id, expiresAt: null });
  });

  test("an event signed with the app's key is forwarded, whoever acted in the folder; a wrong key, no signature or a stale one is refused", async () => {
    const [hook] = box.live();
    expect(await deliver(hook.body.address, "FILE.UPLOADED", PRIMARY_KEY)).toBe(200);
    expect((await boxEvents()).map((e) => [e.trigger, e.account])).toEqual([["file_uploaded", "alice"]]);
    expect(await deliver(hook.body.address, "FILE.UPLOADED", "not-the-apps-key")).toBe(401);
    expect(await deliver(hook.body.address, "FILE.UPLOADED", undefined)).toBe(401);
    const elevenMinutesAgo = new Date(clock.now().getTime() - 11 * 60_000).toISOString().replace(/\.\d{3}Z$/, "-00:00");
    expect(await deliver(hook.body.address, "FILE.UPLOADED", PRIMARY_KEY, elevenMinutesAgo)).toBe(401);
    // The app's key does not open a subscription that does not exist.
    expect(await deliver(hook.body.address.replace(/subscription=[^&]+/, "subscription=psub_unknown"), "FILE.UPLOADED", PRIMARY_KEY)).toBe(401);
    expect(await boxEvents()).toHaveLength(1);
  });

  test("the app's key is one for every tenant: the subscription URL's own token is checked too", async () => {
    const [hook] = box.live();
    const address = new URL(hook.body.address);
    expect(address.searchParams.get("token")).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // Knowing the subscription id (and holding any delivery Box signed for the app) is not enough.
    address.searchParams.delete("token");
    expect(await deliver(address.toString(), "FILE.UPLOADED", PRIMARY_KEY)).toBe(401);
    address.searchParams.set("token", "A".repeat(32));
    expect(await deliver(address.toString(), "FILE.UPLOADED", PRIMARY_KEY)).toBe(401);
    expect(await boxEvents()).toHaveLength(1);
  });

  test("listing another trigger replaces the webhook: the old one is deleted first, as Box allows one per folder", async () => {
    const [old] = box.live();
    await listTriggers(["file_uploaded", "comment_created", "folder_created"]);
    await app.app.subscriptions.runOnce(true);
    expect(box.live()).toHaveLength(1);
    const [hook] = box.live();
    expect(hook.id).not.toBe(old.id);
    expect([...hook.body.triggers].sort()).toEqual(["COMMENT.CREATED", "FILE.UPLOADED", "FOLDER.CREATED"]);
    const order = box.calls.slice(-2).map((c) => [c.method, c.path]);
    expect(order).toEqual([["DELETE", `/api/2.0/webhooks/${old.id}`], ["POST", "/api/2.0/webhooks"]]);
    const [sub] = (await accountSubscriptions(app, ada, accountId)).filter((s) => s.status !== "DELETED");
    expect(sub).toMatchObject({ status: "ACTIVE", providerId: hook.id, lastError: null });
    expect(await deliver(hook.body.address, "FOLDER.CREATED", PRIMARY_KEY)).toBe(200);
    expect((await boxEvents()).map((e) => e.trigger).sort()).toEqual(["file_uploaded", "folder_created"]);
  });

  test("deleted at Box on disconnect, with the account's token", async () => {
    const [hook] = box.live();
    await disconnect(app, ada, accountId);
    expect(box.made("DELETE").slice(-1).map((c) => [c.path, c.owner])).toEqual([[`/api/2.0/webhooks/${hook.id}`, externalId]]);
    expect(box.live()).toHaveLength(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
