/**
 * Airtable webhooks, end to end against a fake that follows Airtable's Web API
 * (airtable.com/developers/web/api/webhooks-overview, /create-a-webhook, /list-webhook-payloads,
 * /refresh-a-webhook, /delete-a-webhook): a connection names its base (`params[base_id]`);
 * Switchyard makes one webhook on it with the account's token (`POST /v0/bases/{baseId}/webhooks`
 * `{notificationUrl, specification: {options: {filters: {dataTypes: ["tableData"]}}}}`, answered
 * `{id, macSecretBase64, expirationTime}`), refreshes it before its 7 days run out and deletes it on
 * disconnect. A notification is a ping `{base, webhook, timestamp}` signed
 * `X-Airtable-Content-MAC: hmac-sha256=<hex>` with the base64-decoded MAC secret; the changes are
 * then read from the webhook's payloads (`?cursor=N`, `{payloads, cursor, mightHaveMore}`) and
 * forwarded one event per changed record, never twice. Airtable asks for a ping to be answered 200
 * or 204 with an empty body: every answer is bare, refusals keeping their status.
 */
import { createHmac, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks } from "./fakeHooks.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers, expectParamRefused } from "./helpers.ts";

const BASE = "appA1b2C3d4E5f6G7";
const TABLE = "tblQ1w2E3r4T5y6U7";
const DAY_MS = 24 * 60 * 60_000;
/** The fake answers at most this many payloads per page, so a read follows `mightHaveMore`. */
const PAGE = 2;
const clock = fakeClock(new Date());
const airtable = fakeHooks();
const failure = (status: number, type: string, message: string) => jsonReply(status, { error: { type, message } });

interface Webhook {
  secret: string;
  expirationTime: string;
  payloads: Record<string, unknown>[];
}
const state = new Map<string, Webhook>();
const payloadReads: Array<{ hook: string; cursor: string | null }> = [];
const refreshes: string[] = [];
let transaction = 100;
/** When set, listing payloads fails as Airtable's servers do when unavailable (503). */
let payloadsDown = false;

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let externalId: string;

const inAWeek = () => new Date(clock.now().getTime() + 7 * DAY_MS).toISOString();

beforeAll(async () => {
  const hookPath = (rest = "") => new RegExp(`^/api/v0/bases/(app[A-Za-z0-9]+)/webhooks/(ach[A-Za-z0-9]+)${rest}$`);
  fake = await startDeclaredProvider(findConnector("airtable")!, {
    routes: [
      {
        method: "POST",
        path: /^\/api\/v0\/bases\/(app[A-Za-z0-9]+)\/webhooks$/,
        handle(req, ctx, [base]) {
          const grant = ctx.authenticate(req);
          const body = airtable.record(req, grant);
          if (!grant) return failure(401, "AUTHENTICATION_REQUIRED", "Authentication required");
          if (!grant.scopes.includes("webhook:manage") || !grant.scopes.includes("data.records:read")) return failure(403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", "Invalid permissions");
          if (base !== BASE) return jsonReply(404, { error: "NOT_FOUND" });
          const dataTypes = body.specification?.options?.filters?.dataTypes;
          if (typeof body.notificationUrl !== "string" || !Array.isArray(dataTypes) || dataTypes.length === 0) return failure(422, "INVALID_REQUEST_UNKNOWN", "Invalid request");
          const hook = airtable.add(grant.identity.id, body);
          const id = `ach${hook.id}${randomBytes(6).toString("hex")}`.slice(0, 17);
          airtable.hooks.delete(hook.id);
          airtable.hooks.set(id, { ...hook, id });
          const webhook = { secret: randomBytes(32).toString("base64"), expirationTime: inAWeek(), payloads: [] };
          state.set(id, webhook);
          return jsonReply(200, { id, macSecretBase64: webhook.secret, expirationTime: webhook.expirationTime });
        },
      },
      {
        method: "POST",
        path: hookPath("/refresh"),
        handle(req, ctx, [, id]) {
          const grant = ctx.authenticate(req);
          airtable.record(req, grant);
          if (!grant) return failure(401, "AUTHENTICATION_REQUIRED", "Authentication required");
          const webhook = state.get(id);
          if (!webhook || !airtable.hooks.has(id)) return jsonReply(404, { error: "NOT_FOUND" });
          refreshes.push(id);
          webhook.expirationTime = inAWeek();
          return jsonReply(200, { expirationTime: webhook.expirationTime });
        },
      },
      {
        method: "GET",
        path: hookPath("/payloads"),
        handle(req, ctx, [, id]) {
          const grant = ctx.authenticate(req);
          if (!grant) return failure(401, "AUTHENTICATION_REQUIRED", "Authentication required");
          if (payloadsDown) return failure(503, "SERVICE_UNAVAILABLE", "Service unavailable");
          const webhook = state.get(id);
          if (!webhook) return jsonReply(404, { error: "NOT_FOUND" });
          const given = req.query.get("cursor");
          payloadReads.push({ hook: id, cursor: given });
          // Omitted, the cursor is 1; payload n has cursor n.
          const cursor = given === null ? 1 : Number(given);
          if (!Number.isInteger(cursor) || cursor < 1) return failure(422, "INVALID_REQUEST_UNKNOWN", "Invalid cursor");
          const payloads = webhook.payloads.slice(cursor - 1, cursor - 1 + PAGE);
          // Listing payloads also extends the webhook's life.
          webhook.expirationTime = inAWeek();
          return jsonReply(200, { payloads, cursor: cursor + payloads.length, mightHaveMore: cursor - 1 + payloads.length < webhook.payloads.length });
        },
      },
      {
        method: "DELETE",
        path: hookPath(),
        handle(req, ctx, [, id]) {
          const grant = ctx.authenticate(req);
          airtable.record(req, grant);
          if (!grant) return failure(401, "AUTHENTICATION_REQUIRED", "Authentication required");
          if (!airtable.hooks.delete(id)) return jsonReply(404, { error: "NOT_FOUND" });
          return jsonReply(200, {});
        },
      },
    ],
  });
  app = await startTestApp(fake.env(), { clock });
  ada = await createOperator(app);
  await listTriggers(app, ada, ["record_created", "record_updated"].map((trigger) => ({ connector: "airtable", trigger })));
  const account = await connectAccount(app, ada, { connector: "airtable", account: "alice", provider: fake, params: { base_id: BASE } });
  accountId = account.id;
  externalId = account.externalId;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const only = () => {
  const [hook] = airtable.live();
  return { hook, webhook: state.get(hook.id)! };
};
/** A payload as Airtable lists it: one transaction on the table. */
function change(table: Record<string, unknown>) {
  return {
    timestamp: clock.now().toISOString(),
    baseTransactionNumber: ++transaction,
    actionMetadata: { source: "client", sourceMetadata: { user: { id: "usrOther0000000001", email: "colleague@example.com", permissionLevel: "create", name: "A Colleague" } } },
    payloadFormat: "v0",
    changedTablesById: { [TABLE]: table },
  };
}
const mac = (secretBase64: string, body: string) => `hmac-sha256=${createHmac("sha256", Buffer.from(secretBase64, "base64")).update(body, "utf8").digest("hex")}`;
function ping(url: string, hookId: string, secretBase64: string | undefined) {
  const body = JSON.stringify({ base: { id: BASE }, webhook: { id: hookId }, timestamp: clock.now().toISOString() });
  const headers: Record<string, string> = { "content-type": "application/json", ...(secretBase64 === undefined ? {} : { "x-airtable-content-mac": mac(secretBase64, body) }) };
  return fetch(url, { method: "POST", headers, body });
}
const airtableEvents = () => storedEvents(app, ada, "airtable");

describe("an Airtable connection naming its base", () => {
  test("the base id is a resource parameter: optional at connect (it names the first watched resource), app… only", async () => {
    await expectParamRefused(app, ada.apiKey, "airtable", "base_id", ["tblQ1w2E3r4T5y6U7", "app123"]);
  });

  test("gets one webhook on the base for record changes, made with the account's token, its MAC secret kept", async () => {
    await app.app.subscriptions.runOnce(true);
    expect(airtable.live()).toHaveLength(1);
    const { hook, webhook } = only();
    expect(hook.owner).toBe(externalId);
    expect(hook.body.specification).toEqual({ options: { filters: { dataTypes: ["tableData"] } } });
    expect(hook.body.notificationUrl).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/airtable\\?subscription=psub_`));
    expect(airtable.made("POST").map((c) => c.path)).toEqual([`/api/v0/bases/${BASE}/webhooks`]);
    const [sub] = await accountSubscriptions(app, ada, accountId);
    expect(sub).toMatchObject({ status: "ACTIVE", resource: `bases/${BASE}`, providerId: hook.id, expiresAt: webhook.expirationTime, lastError: null });
  });

  test("a signed ping is answered 200 with an empty body; Switchyard reads the payloads and forwards one event per changed record of a listed trigger", async () => {
    const { hook, webhook } = only();
    webhook.payloads.push(
      change({ createdRecordsById: { recAAAAAAAAAAAAAA1: { createdTime: clock.now().toISOString(), cellValuesByFieldId: { fldName0000000001: "First" } } } }),
      change({
        createdRecordsById: { recAAAAAAAAAAAAAA2: { createdTime: clock.now().toISOString(), cellValuesByFieldId: { fldName0000000001: "Second" } } },
        changedRecordsById: { recAAAAAAAAAAAAAA1: { current: { cellValuesByFieldId: { fldName0000000001: "First, renamed" } }, previous: { cellValuesByFieldId: { fldName0000000001: "First" } } } },
      }),
      // record_deleted is not listed: kept, but not forwarded.
      change({ destroyedRecordIds: ["recAAAAAAAAAAAAAA2"] }),
    );
    const response = await ping(hook.body.notificationUrl, hook.id, webhook.secret);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
    expect(response.headers.get("content-type")).toBeNull();
    // Three payloads at two a page: read on while mightHaveMore.
    expect(payloadReads.map((r) => r.cursor)).toEqual(["1", "3"]);
    const events = await airtableEvents();
    expect(events.map((e) => [e.trigger, e.account, (e.payload as { recordId: string }).recordId]).sort()).toEqual([
      ["record_created", "alice", "recAAAAAAAAAAAAAA1"],
      ["record_created", "alice", "recAAAAAAAAAAAAAA2"],
      ["record_deleted", "alice", "recAAAAAAAAAAAAAA2"],
      ["record_updated", "alice", "recAAAAAAAAAAAAAA1"],
    ]);
    // The listed triggers' events are forwarded; record_deleted is only kept.
    const forwarded = await app.database.prisma.delivery.findMany({ where: { event: { connector: "airtable" } }, select: { event: { select: { trigger: true } } } });
    expect(forwarded.map((d) => d.event.trigger).sort()).toEqual(["record_created", "record_created", "record_updated"]);
    const updated = events.find((e) => e.trigger === "record_updated")!.payload as Record<string, unknown>;
    expect(updated).toMatchObject({ baseId: BASE, tableId: TABLE, baseTransactionNumber: 102, current: { cellValuesByFieldId: { fldName0000000001: "First, renamed" } } });
  });

  test("the next ping reads on from the kept cursor; nothing is forwarded twice", async () => {
    const { hook, webhook } = only();
    expect((await ping(hook.body.notificationUrl, hook.id, webhook.secret)).status).toBe(200);
    expect(payloadReads.at(-1)?.cursor).toBe("4");
    expect(await airtableEvents()).toHaveLength(4);

    webhook.payloads.push(change({ createdRecordsById: { recAAAAAAAAAAAAAA3: { createdTime: clock.now().toISOString(), cellValuesByFieldId: {} } } }));
    // Airtable may ping more than once for one change.
    for (let i = 0; i < 2; i++) expect((await ping(hook.body.notificationUrl, hook.id, webhook.secret)).status).toBe(200);
    expect((await airtableEvents()).map((e) => (e.payload as { recordId: string }).recordId).filter((id) => id === "recAAAAAAAAAAAAAA3")).toHaveLength(1);

    // Had the cursor been lost (a crash between storing the events and keeping it), the re-read stores nothing twice.
    const sub = await app.database.prisma.providerSubscription.findFirstOrThrow({ where: { providerId: hook.id } });
    await app.database.prisma.changePosition.delete({ where: { connectedAccountId_reader: { connectedAccountId: sub.connectedAccountId, reader: sub.id } } });
    expect((await ping(hook.body.notificationUrl, hook.id, webhook.secret)).status).toBe(200);
    expect(payloadReads.map((r) => r.cursor).slice(-2)).toEqual(["1", "3"]);
    expect(await airtableEvents()).toHaveLength(5);
  });

  test("a ping signed with another secret, or not signed, is refused (401, no body) and reads nothing", async () => {
    const { hook, webhook } = only();
    const reads = payloadReads.length;
    for (const secret of [randomBytes(32).toString("base64"), undefined]) {
      const response = await ping(hook.body.notificationUrl, hook.id, secret);
      expect(response.status).toBe(401);
      expect(await response.text()).toBe("");
    }
    // The webhook's own secret does not open another subscription's URL.
    expect((await ping(hook.body.notificationUrl.replace(/subscription=[^&]+/, "subscription=psub_unknown"), hook.id, webhook.secret)).status).toBe(401);
    expect(payloadReads).toHaveLength(reads);
    expect(await airtableEvents()).toHaveLength(5);
  });

  test("a ping whose payloads cannot be read just now is answered 503 with Retry-After and no body, so Airtable pings again", async () => {
    const { hook, webhook } = only();
    webhook.payloads.push(change({ createdRecordsById: { recAAAAAAAAAAAAAA4: { createdTime: clock.now().toISOString(), cellValuesByFieldId: {} } } }));
    payloadsDown = true;
    const response = await ping(hook.body.notificationUrl, hook.id, webhook.secret);
    payloadsDown = false;
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("30");
    expect(await response.text()).toBe("");
    expect(await airtableEvents()).toHaveLength(5);
    const again = await ping(hook.body.notificationUrl, hook.id, webhook.secret);
    expect([again.status, await again.text()]).toEqual([200, ""]);
    expect(await airtableEvents()).toHaveLength(6);
  });

  test("refreshed before its 7 days run out", async () => {
    const { hook, webhook } = only();
    const [before] = await accountSubscriptions(app, ada, accountId);
    clock.advance(4 * DAY_MS);
    await app.app.subscriptions.runOnce(true);
    expect(refreshes).toEqual([]);
    clock.advance(2 * DAY_MS);
    await app.app.subscriptions.runOnce(true);
    expect(refreshes).toEqual([hook.id]);
    expect(airtable.made("POST").at(-1)?.path).toBe(`/api/v0/bases/${BASE}/webhooks/${hook.id}/refresh`);
    const [after] = await accountSubscriptions(app, ada, accountId);
    expect(after).toMatchObject({ status: "ACTIVE", providerId: hook.id, expiresAt: webhook.expirationTime, lastError: null });
    expect(new Date(after.expiresAt!).getTime()).toBeGreaterThan(new Date(before.expiresAt!).getTime());
    expect(airtable.live()).toHaveLength(1);
  });

  test("deleted at Airtable on disconnect, with the account's token", async () => {
    const { hook } = only();
    await disconnect(app, ada, accountId);
    expect(airtable.made("DELETE").map((c) => [c.path, c.owner])).toEqual([[`/api/v0/bases/${BASE}/webhooks/${hook.id}`, externalId]]);
    expect(airtable.live()).toHaveLength(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
