/**
 * SendGrid's Event Webhook, end to end against a fake following its Webhooks API
 * (twilio.com/docs/sendgrid/api-reference/webhooks): connecting an API key and listing SendGrid
 * triggers makes an Event Webhook with that key (`POST /v3/user/webhooks/event/settings`: the
 * connection's own URL and one boolean per event type), then switches signing on for it
 * (`PATCH …/signed/{id}`), whose answer is the public key its events are verified with. SendGrid
 * POSTs a JSON array of events signed ECDSA P-256 over timestamp + body: each listed event becomes
 * one trigger event of that account; forged, altered and stale posts are refused. Disconnecting
 * deletes the webhook.
 */
import { generateKeyPairSync, type KeyObject, randomUUID, sign } from "node:crypto";
import { EventWebhook } from "@sendgrid/eventwebhook";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { startCredentialedProvider, type FakeCredentialedProvider } from "../helpers/fakeProviders/credentialed.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers, connectWithCredentials } from "./helpers.ts";

interface FakeWebhook {
  id: string;
  url: string;
  enabled: boolean;
  flags: Record<string, boolean>;
  signing?: { privateKey: KeyObject; publicKey: string };
}
const FLAGS = ["bounce", "click", "deferred", "delivered", "dropped", "group_resubscribe", "group_unsubscribe", "open", "processed", "spam_report", "unsubscribe"];
const webhooks = new Map<string, FakeWebhook>();
const deletes: string[] = [];
let failSigning = false;

let fake: FakeCredentialedProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;

beforeAll(async () => {
  fake = await startCredentialedProvider(findConnector("sendgrid")!, {
    routes: [
      ({ method, path, body }) => {
        if (method !== "POST" || path !== "/v3/user/webhooks/event/settings") return undefined;
        const b = body as Record<string, unknown>;
        if (typeof b.url !== "string" || typeof b.enabled !== "boolean") return { status: 400, body: { errors: [{ field: "url", message: "url and enabled are required" }] } };
        if (FLAGS.some((f) => f in b && typeof b[f] !== "boolean")) return { status: 400, body: { errors: [{ message: "event flags must be booleans" }] } };
        // "No more than one webhook may be configured to send to the same URL."
        if ([...webhooks.values()].some((w) => w.url === b.url)) return { status: 400, body: { errors: [{ field: "url", message: "a webhook with this url already exists" }] } };
        const id = randomUUID();
        webhooks.set(id, { id, url: b.url, enabled: b.enabled, flags: Object.fromEntries(FLAGS.map((f) => [f, b[f] === true])) });
        return { status: 201, body: { id, url: b.url, enabled: b.enabled, friendly_name: b.friendly_name ?? null, ...Object.fromEntries(FLAGS.map((f) => [f, b[f] === true])), created_date: new Date().toISOString(), public_key: "", oauth_client_id: "", oauth_token_url: "" } };
      },
      ({ method, path, body }) => {
        const match = method === "PATCH" ? /^\/v3\/user\/webhooks\/event\/settings\/signed\/([0-9a-f-]+)$/.exec(path) : null;
        if (!match) return undefined;
        const [, id] = match;
        const hook = webhooks.get(id);
        if (!hook) return { status: 404, body: { errors: [{ message: "Invalid id provided." }] } };
        if (failSigning) return { status: 500, body: { errors: [{ message: "internal error" }] } };
        if ((body as { enabled?: unknown }).enabled !== true) return { status: 200, body: { id, public_key: "" } };
        const pair = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
        hook.signing = { privateKey: pair.privateKey, publicKey: pair.publicKey.export({ format: "der", type: "spki" }).toString("base64") };
        return { status: 200, body: { id, public_key: hook.signing.publicKey } };
      },
      ({ method, path }) => {
        const match = method === "DELETE" ? /^\/v3\/user\/webhooks\/event\/settings\/([0-9a-f-]+)$/.exec(path) : null;
        if (!match) return undefined;
        const [, id] = match;
        deletes.push(id);
        return webhooks.delete(id) ? { status: 204 } : { status: 404, body: { errors: [{ message: "Invalid id provided." }] } };
      },
    ],
  });
  app = await startTestApp(fake.env());
  ada = await createOperator(app);
  const triggers = ["email_delivered", "email_bounced", "spam_reported"].map((trigger) => ({ connector: "sendgrid", trigger }));
  await listTriggers(app, ada, triggers);

  // The end user's walk: auth-url → Continue → consent → the credentials form.
  accountId = (await connectWithCredentials(app, ada, findConnector("sendgrid")!, "alice", fake.fields)).id;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const live = () => [...webhooks.values()];
const sendgridEvents = () => storedEvents(app, ada, "sendgrid");

/** What SendGrid posts: the raw JSON array, signed over timestamp + body with the webhook's private key. */
function post(hook: FakeWebhook, events: unknown[], opts: { key?: KeyObject; at?: number; alter?: boolean; unsigned?: boolean } = {}) {
  const body = JSON.stringify(events);
  const at = String(opts.at ?? Math.floor(Date.now() / 1000));
  const signature = sign("sha256", Buffer.from(at + body), opts.key ?? hook.signing!.privateKey).toString("base64");
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (!opts.unsigned) Object.assign(headers, { "x-twilio-email-event-webhook-signature": signature, "x-twilio-email-event-webhook-timestamp": at });
  return fetch(hook.url, { method: "POST", headers, body: opts.alter ? body.replace("example@test.com", "other@test.com") : body });
}

const event = (kind: string) => ({ email: "example@test.com", timestamp: 1767261600, "smtp-id": "<14c5d75ce93.dfd.64b469@ismtpd-555>", event: kind, category: "cat facts", sg_event_id: randomUUID(), sg_message_id: "sg_message_id" });

describe("a connected SendGrid account with delivery triggers listed", () => {
  test("a signing step that fails leaves no unsigned webhook behind; the retry makes a signed one", async () => {
    failSigning = true;
    await app.app.subscriptions.runOnce(true);
    expect(live()).toHaveLength(0);
    expect(deletes).toHaveLength(1);
    const [failed] = await accountSubscriptions(app, ada, accountId);
    expect(failed.lastError).toMatch(/signed\/\{providerId\} answered HTTP 500/);
    failSigning = false;
    expect(await app.app.subscriptions.retryNow(failed.id)).toBe(true);
    await app.app.subscriptions.runOnce(true);
    expect(live()).toHaveLength(1);
  });

  test("its Event Webhook posts to the connection's own URL, with only the listed events switched on, and is signed", async () => {
    const [hook] = live();
    expect(hook.url.startsWith(`${app.url}/webhooks/${ada.deploymentId}/sendgrid?subscription=`)).toBe(true);
    expect(hook.enabled).toBe(true);
    expect(Object.entries(hook.flags).filter(([, on]) => on).map(([f]) => f).sort()).toEqual(["bounce", "delivered", "spam_report"]);
    expect(hook.signing).toBeDefined();
    const [row] = await accountSubscriptions(app, ada, accountId);
    expect(row).toMatchObject({ status: "ACTIVE", providerId: hook.id, expiresAt: null, lastError: null });
  });

  test("a signed batch becomes one event per item, for the connected account; SendGrid's retry is no second event", async () => {
    const [hook] = live();
    const batch = [event("delivered"), event("bounce"), event("spamreport")];
    // The fake signs exactly as SendGrid does: its own verifier agrees.
    const body = JSON.stringify(batch);
    const at = String(Math.floor(Date.now() / 1000));
    const ew = new EventWebhook();
    expect(ew.verifySignature(ew.convertPublicKeyToECDSA(hook.signing!.publicKey), body, sign("sha256", Buffer.from(at + body), hook.signing!.privateKey).toString("base64"), at)).toBe(true);

    const response = await post(hook, batch);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ received: 3, recorded: 3, forwarded: 3 });
    const stored = await sendgridEvents();
    expect(stored.map((e) => e.trigger).sort()).toEqual(["email_bounced", "email_delivered", "spam_reported"]);
    expect(stored.every((e) => e.account === "alice")).toBe(true);
    expect(stored.find((e) => e.trigger === "email_bounced")!.payload).toEqual(batch[1]);

    const again = await post(hook, batch);
    expect(await again.json()).toMatchObject({ recorded: 0, duplicates: 3 });
    expect(await sendgridEvents()).toHaveLength(3);
  });

  test("another key, an altered body, a stale timestamp or no signature is a 401 that stores nothing", async () => {
    const [hook] = live();
    const other = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey;
    const forged = [
      await post(hook, [event("delivered")], { key: other }),
      await post(hook, [event("delivered")], { alter: true }),
      await post(hook, [event("delivered")], { at: Math.floor(Date.now() / 1000) - 10 * 60 }),
      await post(hook, [event("delivered")], { unsigned: true }),
    ];
    for (const response of forged) {
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: "invalid_signature" });
    }
    // Signed with this webhook's key, but sent to a URL naming no subscription of this deployment.
    const elsewhere = { ...hook, url: hook.url.replace(/subscription=[^&]+/, `subscription=${randomUUID()}`) };
    expect((await post(elsewhere, [event("delivered")])).status).toBe(401);
    expect(await sendgridEvents()).toHaveLength(3);
  });

  test("deleted at SendGrid on disconnect", async () => {
    const [hook] = live();
    await disconnect(app, ada, accountId);
    expect(deletes.at(-1)).toBe(hook.id);
    expect(live()).toHaveLength(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
