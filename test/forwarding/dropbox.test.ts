/**
 * Dropbox file triggers, end to end against a fake that follows Dropbox's documentation:
 * - webhooks (www.dropbox.com/developers/reference/webhooks): the app's one URI is verified with
 *   `GET ?challenge=…` (echoed as text/plain, X-Content-Type-Options: nosniff); notifications are
 *   `POST {"list_folder":{"accounts":[…]},"delta":{"users":[…]}}` signed `X-Dropbox-Signature` =
 *   hex HMAC-SHA256 of the body keyed by the app secret, and only say which accounts changed;
 * - files/list_folder/get_latest_cursor `{path, recursive}` → `{cursor}` and
 *   files/list_folder/continue `{cursor}` → `{entries, cursor, has_more}` (RPC: POST, JSON body),
 *   a cursor Dropbox invalidated answering 409 `{"error_summary":"reset/…","error":{".tag":"reset"}}`.
 * The notification is answered at once; the poller reads each named account right after, with that
 * account's own token, from the cursor taken when it connected.
 */
import { createHmac, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import type { Poller } from "../../src/polling/poller.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { jsonReply, type FakeRequest, type Reply, type Route, type RouteContext } from "../helpers/fakeProviders/oauthServer.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import type { DeclaredIdentity } from "../helpers/fakeProviders/declared.ts";
import { scaled } from "../helpers/timing.ts";

const ALICE = "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc";
const BOB = "dbid:AADbob0T0taONIb-OurWxbNQ6ywGRopQzzz";
/** Entries per list_folder/continue page: small, so has_more is exercised. */
const PAGE = 2;

type Entry = Record<string, unknown> & { ".tag": string; path_lower: string };

/** One Dropbox account's change log; a cursor is a position in it, in the account's current epoch. */
interface Account {
  log: Entry[];
  epoch: number;
  files: Map<string, { id: string; rev: number }>;
}

const accounts = new Map<string, Account>();
const continueCalls: Array<{ tokenOwner: string; cursorOwner: string }> = [];
const account = (id: string): Account => {
  let a = accounts.get(id);
  if (!a) accounts.set(id, (a = { log: [], epoch: 0, files: new Map() }));
  return a;
};
const cursorOf = (owner: string, position: number) => Buffer.from(JSON.stringify({ owner, position, epoch: account(owner).epoch })).toString("base64url");
const dropboxError = (status: number, tag: string) => jsonReply(status, { error_summary: `${tag}/..`, error: { ".tag": tag } });
const badInput = (endpoint: string, message: string): Reply => ({ status: 400, headers: { "content-type": "text/plain; charset=utf-8" }, body: `Error in call to API function "${endpoint}": ${message}` });

/** `at`: the file's server_modified (Dropbox's format, whole seconds), now unless given. */
function writeFile(owner: string, path: string, at = new Date().toISOString().replace(/\.\d+Z$/, "Z")) {
  const a = account(owner);
  const known = a.files.get(path.toLowerCase()) ?? { id: `id:${randomBytes(8).toString("base64url")}`, rev: 0x1c10ce0dd78 };
  known.rev += 1;
  a.files.set(path.toLowerCase(), known);
  a.log.push({
    ".tag": "file",
    name: path.split("/").pop(),
    id: known.id,
    client_modified: at,
    server_modified: at,
    rev: known.rev.toString(16),
    size: 7212,
    path_lower: path.toLowerCase(),
    path_display: path,
    is_downloadable: true,
    content_hash: randomBytes(32).toString("hex"),
  });
}
function makeFolder(owner: string, path: string) {
  account(owner).log.push({ ".tag": "folder", name: path.split("/").pop(), id: `id:${randomBytes(8).toString("base64url")}`, path_lower: path.toLowerCase(), path_display: path });
}
function deletePath(owner: string, path: string) {
  account(owner).files.delete(path.toLowerCase());
  account(owner).log.push({ ".tag": "deleted", name: path.split("/").pop(), path_lower: path.toLowerCase(), path_display: path });
}

/** An RPC call's JSON argument, or the 400 Dropbox answers for a wrong Content-Type or body. */
function rpcArg(req: FakeRequest, endpoint: string): { arg: Record<string, unknown> } | { reply: Reply } {
  if (!String(req.headers["content-type"] ?? "").startsWith("application/json")) {
    return { reply: badInput(endpoint, `Bad HTTP "Content-Type" header: "${req.headers["content-type"] ?? ""}". Expecting one of "application/json", "application/json; charset=utf-8", "text/plain; charset=dropbox-cors-hack".`) };
  }
  try {
    const arg = JSON.parse(req.rawBody.toString("utf8"));
    if (arg && typeof arg === "object" && !Array.isArray(arg)) return { arg };
  } catch {
    // answered below
  }
  return { reply: badInput(endpoint, "request body: could not decode input as JSON") };
}

const routes: Route<DeclaredIdentity>[] = [
  {
    method: "POST",
    path: "/api/2/files/list_folder/get_latest_cursor",
    handle(req: FakeRequest, ctx: RouteContext<DeclaredIdentity>) {
      const grant = ctx.authenticate(req);
      if (!grant) return dropboxError(401, "invalid_access_token");
      if (!grant.scopes.includes("files.metadata.read")) return jsonReply(401, { error_summary: "missing_scope/..", error: { ".tag": "missing_scope", required_scope: "files.metadata.read" } });
      const read = rpcArg(req, "files/list_folder/get_latest_cursor");
      if ("reply" in read) return read.reply;
      const { arg } = read;
      if (arg.path !== "" || arg.recursive !== true) return badInput("files/list_folder/get_latest_cursor", "this fake lists the whole Dropbox only");
      const owner = grant.identity.id;
      return jsonReply(200, { cursor: cursorOf(owner, account(owner).log.length) });
    },
  },
  {
    method: "POST",
    path: "/api/2/files/list_folder/continue",
    handle(req: FakeRequest, ctx: RouteContext<DeclaredIdentity>) {
      const grant = ctx.authenticate(req);
      if (!grant) return dropboxError(401, "invalid_access_token");
      const read = rpcArg(req, "files/list_folder/continue");
      if ("reply" in read) return read.reply;
      const { arg } = read;
      let cursor: { owner: string; position: number; epoch: number };
      try {
        cursor = JSON.parse(Buffer.from(String(arg.cursor), "base64url").toString("utf8"));
      } catch {
        return badInput("files/list_folder/continue", "cursor: invalid cursor");
      }
      continueCalls.push({ tokenOwner: grant.identity.id, cursorOwner: cursor.owner });
      if (cursor.owner !== grant.identity.id) return badInput("files/list_folder/continue", "cursor: invalid cursor");
      const a = account(cursor.owner);
      if (cursor.epoch !== a.epoch) return dropboxError(409, "reset");
      const entries = a.log.slice(cursor.position, cursor.position + PAGE);
      const position = cursor.position + entries.length;
      return jsonReply(200, { entries, cursor: cursorOf(cursor.owner, position), has_more: position < a.log.length });
    },
  },
];

let fake: FakeDeclaredProvider;
let receiver: Receiver;
let app: TestApp;
let ada: Operator;
let poller: Poller;
let appSecret: string;

const webhookUrl = () => `${app.url}/webhooks/${ada.deploymentId}/dropbox`;
function notification(accountIds: string[], secret = appSecret) {
  return signedPost(JSON.stringify({ list_folder: { accounts: accountIds }, delta: { users: accountIds.map((_, i) => 12345 + i) } }), secret);
}
function signedPost(body: string, secret = appSecret) {
  return fetch(webhookUrl(), {
    method: "POST",
    headers: { "content-type": "application/json", "x-dropbox-signature": createHmac("sha256", secret).update(body).digest("hex"), "user-agent": "DropboxWebhooks/1.0" },
    body,
  });
}
const forwarded = () => receiver.requests.map((r) => JSON.parse(r.body) as { type: string; account: string; occurredAt: string; data: Record<string, unknown> });

beforeAll(async () => {
  [fake, receiver] = await Promise.all([startDeclaredProvider(findConnector("dropbox")!, { routes }), startReceiver()]);
  appSecret = fake.env().CONNECTOR_DROPBOX_CLIENT_SECRET;
  // The app's webhook secret is its app secret: Dropbox signs with that.
  app = await startTestApp({ ...fake.env(), CONNECTOR_DROPBOX_WEBHOOK_SECRET: appSecret, POLL_INTERVAL: "1h" }, { worker: true });
  poller = app.app.createPoller();
  ada = await createOperator(app, "Ada");
  // Changes before connecting are not forwarded.
  writeFile(ALICE, "/Before/old.txt");
  fake.setIdentity({ id: ALICE, displayName: "Alice" });
  await connectAccount(app, ada, { connector: "dropbox", account: "alice", provider: fake });
  fake.setIdentity({ id: BOB, displayName: "Bob" });
  await connectAccount(app, ada, { connector: "dropbox", account: "bob", provider: fake });
  ok(
    await app.gql(
      SaveForwardingSettings,
      {
        deploymentId: ada.deploymentId,
        input: { forwardingUrl: `${receiver.url}/dropbox`, triggers: ["file_changed", "folder_created", "file_deleted"].map((trigger) => ({ connector: "dropbox", trigger })) },
      },
      { token: ada.token },
    ),
  );
}, 120_000);

afterAll(async () => {
  await poller?.stop();
  await app?.close();
  await Promise.all([fake?.close(), receiver?.close()]);
});

describe("Dropbox", () => {
  test("lists its three file triggers", async () => {
    const { connector } = ok(await app.gql<{ connector: { triggers: Array<{ name: string }> } }, { name: string }>(`query($name: String!) { connector(name: $name) { triggers { name } } }`, { name: "dropbox" }));
    expect(connector.triggers.map((t) => t.name)).toEqual(["file_changed", "folder_created", "file_deleted"]);
  });

  test("the webhook URI's verification request has its challenge echoed as plain text, nosniff", async () => {
    const response = await fetch(`${webhookUrl()}?challenge=${encodeURIComponent("f3b1c0de-challenge")}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await response.text()).toBe("f3b1c0de-challenge");
  });

  test("a notification naming two accounts is answered at once; each account's changes are read with its own token and forwarded, one event per entry", async () => {
    writeFile(ALICE, "/Homework/math/Prime_Numbers.txt");
    makeFolder(ALICE, "/Homework/physics");
    writeFile(ALICE, "/Homework/math/Prime_Numbers.txt");
    deletePath(ALICE, "/Before/old.txt");
    writeFile(BOB, "/Photos/cat.jpg", "2026-11-28T10:00:00Z");

    const notifiedAt = Date.now();
    const response = await notification([ALICE, BOB]);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ accounts: 2, queued: 2 });
    // Nothing is read while Dropbox waits.
    expect(continueCalls).toHaveLength(0);

    expect(await poller.runOnce()).toMatchObject({ polled: 2, recorded: 5 });
    expect(continueCalls.length).toBeGreaterThanOrEqual(3);
    expect(continueCalls.every((call) => call.tokenOwner === call.cursorOwner)).toBe(true);
    await receiver.waitFor((requests) => requests.length === 5);
    const events = forwarded().map((e) => [e.account, e.type, e.data.path_display, e.data.tag]);
    expect(events.sort()).toEqual(
      [
        ["alice", "dropbox.file_changed", "/Homework/math/Prime_Numbers.txt", "file"],
        ["alice", "dropbox.file_changed", "/Homework/math/Prime_Numbers.txt", "file"],
        ["alice", "dropbox.file_deleted", "/Before/old.txt", "deleted"],
        ["alice", "dropbox.folder_created", "/Homework/physics", "folder"],
        ["bob", "dropbox.file_changed", "/Photos/cat.jpg", "file"],
      ].sort(),
    );
    const revs = forwarded().filter((e) => e.type === "dropbox.file_changed" && e.account === "alice").map((e) => e.data.rev);
    expect(new Set(revs).size).toBe(2);
    expect(forwarded().find((e) => e.account === "bob")!.data).toMatchObject({ account_id: BOB, name: "cat.jpg", path_lower: "/photos/cat.jpg" });
    // A file is dated by Dropbox's server_modified; a folder has none, so by when the notification came.
    expect(forwarded().find((e) => e.account === "bob")!.occurredAt).toBe("2026-11-28T10:00:00.000Z");
    const folderAt = Date.parse(forwarded().find((e) => e.type === "dropbox.folder_created")!.occurredAt);
    expect(Math.abs(folderAt - notifiedAt)).toBeLessThan(scaled(10_000));
  });

  test("the same notification again reads from the stored cursors and forwards nothing new", async () => {
    const before = receiver.requests.length;
    expect(await (await notification([ALICE, BOB])).json()).toEqual({ accounts: 2, queued: 2 });
    expect(await poller.runOnce()).toMatchObject({ polled: 2, recorded: 0 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests.length).toBe(before);
  });

  test("a notification with a forged signature is refused and reads nothing", async () => {
    writeFile(ALICE, "/Secret/plan.txt");
    const calls = continueCalls.length;
    for (const response of [await notification([ALICE], "not-the-app-secret"), await fetch(webhookUrl(), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ list_folder: { accounts: [ALICE] } }) })]) {
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: "invalid_signature" });
    }
    expect(await poller.runOnce()).toMatchObject({ polled: 0 });
    expect(continueCalls.length).toBe(calls);
  });

  test("a cursor Dropbox reset is replaced by a new latest cursor, and later changes arrive again", async () => {
    // Pending from the previous test, then the reset: Dropbox says those can no longer be listed.
    account(ALICE).epoch++;
    writeFile(ALICE, "/During/reset.txt");
    const before = receiver.requests.length;
    await notification([ALICE]);
    expect(await poller.runOnce()).toMatchObject({ polled: 1, recorded: 0 });

    writeFile(ALICE, "/After/reset.txt");
    expect(await (await notification([ALICE])).json()).toEqual({ accounts: 1, queued: 1 });
    expect(await poller.runOnce()).toMatchObject({ polled: 1, recorded: 1 });
    await receiver.waitFor((requests) => requests.length === before + 1);
    expect(forwarded().at(-1)).toMatchObject({ type: "dropbox.file_changed", account: "alice", data: { path_display: "/After/reset.txt" } });
  });

  test("a connection made before Dropbox triggers existed (no cursor) starts from Dropbox's latest cursor", async () => {
    await app.database.sql.query(
      `delete from change_position p using connected_account a where p.connected_account_id = a.id and a.connector = 'dropbox' and a.external_id = $1`,
      [BOB],
    );
    writeFile(BOB, "/Photos/before-the-upgrade.jpg");
    await notification([BOB]);
    expect(await poller.runOnce()).toMatchObject({ polled: 1, recorded: 0 });
    writeFile(BOB, "/Photos/after-the-upgrade.jpg");
    await notification([BOB]);
    expect(await poller.runOnce()).toMatchObject({ polled: 1, recorded: 1 });
    await receiver.waitFor((requests) => requests.some((r) => r.body.includes("after-the-upgrade")));
    expect(receiver.requests.some((r) => r.body.includes("before-the-upgrade"))).toBe(false);
  });

  test("a signed body that is not Dropbox's notification (not JSON, no account list, ids that are not Dropbox's) queues nothing and reads nothing", async () => {
    writeFile(ALICE, "/Odd/bodies.txt");
    const calls = continueCalls.length;
    for (const body of ["not json", "[]", JSON.stringify({ list_folder: { accounts: "dbid:x" } }), JSON.stringify({ list_folder: { accounts: [42, { id: ALICE }, "alice@example.com", `${ALICE}/../x`] } })]) {
      const response = await signedPost(body);
      // Acknowledged (Dropbox would only retry it), nothing queued.
      expect(response.status, body).toBe(200);
      expect(((await response.json()) as { queued?: number }).queued ?? 0, body).toBe(0);
    }
    expect(await poller.runOnce()).toMatchObject({ polled: 0 });
    expect(continueCalls.length).toBe(calls);
  });

  test("a notification for accounts nobody connected here queues nothing", async () => {
    expect(await (await notification(["dbid:AAAnobody000000000000000000000000000"])).json()).toEqual({ accounts: 1, queued: 0 });
  });
});
