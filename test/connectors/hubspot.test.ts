/**
 * HubSpot's app-level webhook, end to end over HTTP. The operator sets the app's target URL to the
 * deployment's inbound URL and stores the app's client secret as HubSpot's webhook secret; HubSpot
 * then POSTs JSON arrays of events for every account that installed the app
 * (https://developers.hubspot.com/docs/api/webhooks), signed v3 as its request-validation page says:
 * `X-HubSpot-Signature-v3` = base64 HMAC-SHA256(client secret, method + URI + body + timestamp), the
 * URI as HubSpot called it with `%3A %2F %3F %40 %21 %24 %27 %28 %29 %2A %2C %3B` decoded, and
 * `X-HubSpot-Request-Timestamp` in milliseconds, refused when older than five minutes.
 * (`@hubspot/api-client` is not installed here: the signer below is written from those pages.)
 */
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { fakeClock, type FakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { DeploymentEvents, SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const hubspot = findConnector("hubspot")!;
const PORTAL = 62515;
const OTHER_PORTAL = 99001;

let app: TestApp;
let fake: FakeDeclaredProvider;
let receiver: Receiver;
let ada: Operator;
let clock: FakeClock;
let clientSecret: string;

/** HubSpot's v3 signature, from its request-validation page. */
const DECODED: Record<string, string> = { "%3A": ":", "%2F": "/", "%3F": "?", "%40": "@", "%21": "!", "%24": "$", "%27": "'", "%28": "(", "%29": ")", "%2A": "*", "%2C": ",", "%3B": ";" };
function signV3(secret: string, uri: string, body: string, timestamp: number) {
  const decodedUri = uri.replace(/%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi, (escape) => DECODED[escape.toUpperCase()]);
  const signature = createHmac("sha256", secret).update(`POST${decodedUri}${body}${timestamp}`, "utf8").digest("base64");
  return { "x-hubspot-signature-v3": signature, "x-hubspot-request-timestamp": String(timestamp), "x-hubspot-signature-version": "v3" };
}

/** One event as the webhooks guide's payload table lists it. */
const event = (eventId: number, subscriptionType: string, objectId: number, extra: Record<string, unknown> = {}) => ({
  objectId,
  changeSource: "CRM",
  eventId,
  subscriptionId: 25,
  portalId: PORTAL,
  appId: 1160452,
  occurredAt: 1767261600000 + eventId,
  subscriptionType,
  attemptNumber: 0,
  ...extra,
});

beforeAll(async () => {
  clock = fakeClock(new Date());
  receiver = await startReceiver();
  fake = await startDeclaredProvider(hubspot, { autoApprove: true });
  fake.setIdentity({ id: String(PORTAL), displayName: "acme.hubspot.com" });
  const env = fake.env();
  clientSecret = env.CONNECTOR_HUBSPOT_CLIENT_SECRET;
  // HubSpot signs with the app's client secret: the operator stores it as the webhook secret.
  app = await startTestApp({ ...env, CONNECTOR_HUBSPOT_WEBHOOK_SECRET: clientSecret, DELIVERY_RETRY_SCHEDULE: "100ms,200ms" }, { worker: true, clock });
  ada = await createOperator(app, "Ada");
  await connectAccount(app, ada, { connector: "hubspot", account: "acme-crm", provider: fake });
  const triggers = ["contact_created", "contact_property_changed", "company_deleted", "deal_property_changed"].map((trigger) => ({ connector: "hubspot", trigger }));
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/hooks`, triggers } }, { token: ada.token }));
}, 120_000);

afterAll(async () => {
  await app?.close();
  await Promise.all([receiver?.close(), fake?.close()]);
});

const inboundUrl = () => `${app.url}/webhooks/${ada.deploymentId}/hubspot`;
const post = (body: string, headers: Record<string, string>, url = inboundUrl()) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
const hubspotEvents = async () =>
  ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 100 }, { token: ada.token })).deployment!.events.filter((e) => e.connector === "hubspot");

describe("HubSpot's batched, v3-signed deliveries", () => {
  const created = event(101, "contact.creation", 1246965);
  const lifecycle = event(102, "contact.propertyChange", 1246965, { propertyName: "lifecyclestage", propertyValue: "customer" });
  const dealStage = event(103, "deal.propertyChange", 9018273, { propertyName: "dealstage", propertyValue: "closedwon" });
  const companyGone = event(104, "company.deletion", 5832114);
  const elsewhere = { ...event(105, "contact.creation", 77), portalId: OTHER_PORTAL };

  test("one delivery of five events: one forwarded event per item of the connected portal, routed by portalId", async () => {
    const body = JSON.stringify([created, lifecycle, dealStage, companyGone, elsewhere]);
    const response = await post(body, signV3(clientSecret, inboundUrl(), body, clock.now().getTime()));
    expect(response.status).toBe(200);
    // The other portal installed the app but is not connected to this deployment: not stored.
    expect(await response.json()).toMatchObject({ received: 5, recorded: 4, forwarded: 4, duplicates: 0, unrouted: 1 });

    const stored = await hubspotEvents();
    expect(stored.map((e) => e.type).sort()).toEqual(["hubspot.company_deleted", "hubspot.contact_created", "hubspot.contact_property_changed", "hubspot.deal_property_changed"]);
    for (const e of stored) expect(e.account).toBe("acme-crm");
    const stage = stored.find((e) => e.type === "hubspot.deal_property_changed")!;
    expect(stage.payload).toEqual(dealStage);
    expect(stage.occurredAt).toBe(new Date(dealStage.occurredAt).toISOString());

    await receiver.waitFor((requests) => requests.filter((r) => JSON.parse(r.body).type?.startsWith("hubspot.")).length === 4);
    const forwarded = receiver.requests.map((r) => JSON.parse(r.body)).filter((b) => b.type?.startsWith("hubspot."));
    expect(forwarded.find((b) => b.type === "hubspot.contact_property_changed")).toMatchObject({ account: "acme-crm", data: lifecycle });
  });

  test("HubSpot's retry (attemptNumber 1, a new timestamp, batched differently) is not forwarded twice", async () => {
    const retry = JSON.stringify([{ ...dealStage, attemptNumber: 1 }, { ...created, attemptNumber: 1 }]);
    clock.advance(60_000);
    const response = await post(retry, signV3(clientSecret, inboundUrl(), retry, clock.now().getTime()));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ received: 2, recorded: 0, duplicates: 2 });
    expect(await hubspotEvents()).toHaveLength(4);
  });

  test("a wrong secret, an altered body, another URI or a timestamp older than five minutes is refused 401", async () => {
    const body = JSON.stringify([event(201, "contact.deletion", 1246965)]);
    const now = clock.now().getTime();
    expect((await post(body, signV3("not-the-client-secret", inboundUrl(), body, now))).status).toBe(401);
    expect((await post(body.replace("201", "202"), signV3(clientSecret, inboundUrl(), body, now))).status).toBe(401);
    expect((await post(body, signV3(clientSecret, `${inboundUrl()}x`, body, now))).status).toBe(401);
    expect((await post(body, { ...signV3(clientSecret, inboundUrl(), body, now), "x-hubspot-request-timestamp": String(now + 1) })).status).toBe(401);
    expect((await post(body, { ...signV3(clientSecret, inboundUrl(), body, now), "x-hubspot-request-timestamp": "yesterday" })).status).toBe(401);

    // Signed now, delivered five minutes and a second later.
    const signed = signV3(clientSecret, inboundUrl(), body, now);
    clock.advance(5 * 60_000 + 1_000);
    const stale = await post(body, signed);
    expect(stale.status).toBe(401);
    expect((await stale.json()).code).toBe("invalid_signature");
    expect(await hubspotEvents()).toHaveLength(4);
  });

  test("the URI is signed with HubSpot's escapes decoded (a target URL with an encoded query)", async () => {
    const url = `${inboundUrl()}?source=hubspot%3Acrm%2Capp`;
    const body = JSON.stringify([event(301, "contact.deletion", 1246965)]);
    const response = await post(body, signV3(clientSecret, url, body, clock.now().getTime()), url);
    expect(response.status).toBe(200);
    // contact_deleted is not in the Forwarding Trigger List: stored, not forwarded.
    expect(await response.json()).toMatchObject({ received: 1, recorded: 1, forwarded: 0 });
  });
});
