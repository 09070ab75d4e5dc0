/**
 * Calendly's webhook subscriptions, end to end against a fake that follows its API
 * (developer.calendly.com/docs/webhooks/overview): a user-scoped subscription per connection made
 * with the account's token (`POST /webhook_subscriptions` with url, events, organization, user and
 * scope "user"; the answer names it by `resource.uri`), deleted by its uuid on disconnect; made
 * again for the new events when the trigger list changes, each with its own URL (a user's
 * subscriptions cannot share one). Deliveries are signed with the OAuth app's signing key;
 * forged ones are refused.
 */
import { createHmac, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers } from "./helpers.ts";

const SIGNING_KEY = "the-oauth-apps-webhook-signing-key";
const API = "https://api.calendly.com";

interface CalendlySubscription {
  uri: string;
  callback_url: string;
  events: string[];
  organization: string;
  user: string;
  scope: string;
  state: "active";
}
const subscriptions = new Map<string, CalendlySubscription>();
const deletes: string[] = [];

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let userUri: string;

beforeAll(async () => {
  fake = await startDeclaredProvider(findConnector("calendly")!, {
    routes: [
      {
        method: "POST",
        path: "/api/webhook_subscriptions",
        handle(req, ctx) {
          if (!ctx.authenticate(req)) return jsonReply(401, { title: "Unauthenticated", message: "The access token is invalid" });
          const body = JSON.parse(req.rawBody.toString()) as Record<string, any>;
          const missing = ["url", "events", "organization", "scope"].filter((k) => !body[k]);
          if (missing.length || (body.scope === "user" && !body.user)) return jsonReply(400, { title: "Invalid Argument", message: `missing ${missing.join(", ") || "user"}` });
          if (body.events.includes("routing_form_submission.created") && body.scope !== "organization") return jsonReply(400, { title: "Invalid Argument", message: "routing_form_submission.created needs organization scope" });
          if ([...subscriptions.values()].some((s) => s.user === body.user && s.callback_url === body.url)) return jsonReply(409, { title: "Already Exists", message: "Hook with this url already exists" });
          const uri = `${API}/webhook_subscriptions/${randomUUID()}`;
          const sub: CalendlySubscription = { uri, callback_url: body.url, events: body.events, organization: body.organization, user: body.user, scope: body.scope, state: "active" };
          subscriptions.set(uri.split("/").pop()!, sub);
          return jsonReply(201, { resource: { ...sub, created_at: new Date().toISOString(), updated_at: new Date().toISOString(), retry_started_at: null, creator: body.user } });
        },
      },
      {
        method: "DELETE",
        path: /^\/api\/webhook_subscriptions\/([0-9a-f-]+)$/,
        handle(req, ctx, params) {
          if (!ctx.authenticate(req)) return jsonReply(401, { title: "Unauthenticated", message: "The access token is invalid" });
          const uuid = params.find((p) => /^[0-9a-f-]{36}$/.test(p ?? ""))!;
          deletes.push(uuid);
          if (!subscriptions.delete(uuid)) return jsonReply(404, { title: "Resource Not Found", message: "The server could not find the requested resource." });
          return { status: 204, body: "" };
        },
      },
    ],
  });
  app = await startTestApp({ ...fake.env(), CONNECTOR_CALENDLY_WEBHOOK_SECRET: SIGNING_KEY });
  ada = await createOperator(app);
  const triggers = ["invitee_created", "invitee_canceled", "routing_form_submission_created"].map((trigger) => ({ connector: "calendly", trigger }));
  await listTriggers(app, ada, triggers);
  const account = await connectAccount(app, ada, { connector: "calendly", account: "alice", provider: fake });
  accountId = account.id;
  userUri = account.externalId;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

function signed(body: string, key = SIGNING_KEY, at = new Date()) {
  const t = Math.floor(at.getTime() / 1000);
  return { "content-type": "application/json", "calendly-webhook-signature": `t=${t},v1=${createHmac("sha256", key).update(`${t}.${body}`).digest("hex")}` };
}
const live = () => [...subscriptions.values()];
const calendlyEvents = () => storedEvents(app, ada, "calendly");
const invitee = (event: string) =>
  JSON.stringify({ created_at: new Date().toISOString(), created_by: userUri, event, payload: { uri: `${API}/scheduled_events/E/invitees/${randomUUID()}`, name: "John Doe", scheduled_event: { event_memberships: [{ user: userUri }] } } });

describe("a connected Calendly account with invitee triggers listed", () => {
  test("gets one user-scoped subscription for the listed invitee events, with the user's organization", async () => {
    await app.app.subscriptions.runOnce(true);
    expect(live()).toHaveLength(1);
    const [sub] = live();
    expect(sub).toMatchObject({ scope: "user", user: userUri, organization: "organization of Calendly User" });
    // Routing form submissions exist only at organization scope: not asked for here.
    expect(sub.events.sort()).toEqual(["invitee.canceled", "invitee.created"]);
    expect(sub.callback_url.startsWith(`${app.url}/webhooks/${ada.deploymentId}/calendly?channel=`)).toBe(true);
    const [row] = await accountSubscriptions(app, ada, accountId);
    expect(row).toMatchObject({ status: "ACTIVE", providerId: sub.uri.split("/").pop(), expiresAt: null, lastError: null });
  });

  test("a delivery signed with the app's signing key becomes the trigger's event; forged ones are refused", async () => {
    const [sub] = live();
    const body = invitee("invitee.created");
    expect((await fetch(sub.callback_url, { method: "POST", headers: signed(body), body })).status).toBe(200);
    expect((await calendlyEvents()).map((e) => e.trigger)).toEqual(["invitee_created"]);
    const other = invitee("invitee.canceled");
    for (const headers of [signed(other, "a-forged-key"), signed(other, SIGNING_KEY, new Date(Date.now() - 10 * 60_000)), { "content-type": "application/json" }]) {
      expect((await fetch(sub.callback_url, { method: "POST", headers, body: other })).status).toBe(401);
    }
    expect(await calendlyEvents()).toHaveLength(1);
  });

  test("made again with a URL of its own when the listed triggers change; the old one deleted by its uuid", async () => {
    const [old] = live();
    const triggers = ["invitee_created", "invitee_canceled", "invitee_no_show_created"].map((trigger) => ({ connector: "calendly", trigger }));
    await listTriggers(app, ada, triggers);
    await app.app.subscriptions.runOnce(true);
    expect(live()).toHaveLength(1);
    expect(live()[0].events.sort()).toEqual(["invitee.canceled", "invitee.created", "invitee_no_show.created"]);
    expect(live()[0].callback_url).not.toBe(old.callback_url);
    expect(deletes).toEqual([old.uri.split("/").pop()]);
  });

  test("deleted at Calendly on disconnect", async () => {
    const [sub] = live();
    await disconnect(app, ada, accountId);
    expect(deletes.at(-1)).toBe(sub.uri.split("/").pop());
    expect(live()).toHaveLength(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
