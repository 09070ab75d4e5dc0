/**
 * Xero's app-level webhook, end to end over HTTP. The operator sets the delivery URL in the app's
 * Webhooks tab to the deployment's inbound URL and stores the webhook key Xero shows there as Xero's
 * webhook secret. Xero POSTs `{"events":[…],"firstEventSequence","lastEventSequence","entropy"}` for
 * every organisation connected to the app, signed `x-xero-signature` = base64 HMAC-SHA256 of the raw
 * body with that key (https://developer.xero.com/documentation/guides/webhooks/overview). Before it
 * sends events it checks "intent to receive": empty batches, some correctly and some wrongly signed,
 * which must be answered 200 and 401 respectively, with no body, within 5 seconds
 * (https://developer.xero.com/documentation/guides/webhooks/configuring-your-server).
 */
import { createHmac, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { DeploymentEvents, SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const xero = findConnector("xero")!;
const TENANT = "c2cc9b6e-9458-4c7d-93cc-f02b81b0594f";
const OTHER_TENANT = "4a1f3e2d-0c9b-4d8e-a7f6-5e4d3c2b1a09";
/** An organisation connected to the app by someone else, not to this deployment. */
const STRANGER = "8f7e6d5c-4b3a-4291-8f7e-6d5c4b3a2918";
// Xero hands out a 64-byte base64 key; it is used as text, as Xero's own samples do.
const WEBHOOK_KEY = randomBytes(64).toString("base64");

let app: TestApp;
let fake: FakeDeclaredProvider;
let receiver: Receiver;
let ada: Operator;

const sign = (key: string, body: string) => ({ "x-xero-signature": createHmac("sha256", key).update(body, "utf8").digest("base64") });
/** A delivery as Xero writes it. */
const delivery = (events: Record<string, unknown>[], sequence = 1) =>
  JSON.stringify({ events, firstEventSequence: sequence, lastEventSequence: sequence + Math.max(events.length - 1, 0), entropy: randomBytes(8).toString("hex").toUpperCase() });
const event = (eventCategory: string, eventType: string, resourceId: string, tenantId = TENANT, eventDateUtc = "2026-01-01T10:00:00.000") => ({
  resourceUrl: `https://api.xero.com/api.xro/2.0/${eventCategory === "INVOICE" ? "Invoices" : "Contacts"}/${resourceId}`,
  resourceId,
  eventDateUtc,
  eventType,
  eventCategory,
  tenantId,
  tenantType: "ORGANISATION",
});

beforeAll(async () => {
  receiver = await startReceiver();
  fake = await startDeclaredProvider(xero, {
    autoApprove: true,
    routes: [
      {
        // GET /connections: one entry per organisation the user authorised.
        method: "GET",
        path: "/api/connections",
        handle: (req, ctx) => {
          const grant = ctx.authenticate(req);
          if (!grant) return jsonReply(401, { Title: "Unauthorized" });
          return jsonReply(200, [
            { id: "e1eede29-f875-4a5d-8470-17f6a29a88b1", tenantId: grant.identity.id, tenantType: "ORGANISATION", tenantName: grant.identity.displayName },
            { id: "32587c85-a9b3-4306-ac30-b416e8f2c841", tenantId: OTHER_TENANT, tenantType: "ORGANISATION", tenantName: "Acme Holdings" },
          ]);
        },
      },
    ],
  });
  fake.setIdentity({ id: TENANT, displayName: "Acme Ltd" });
  app = await startTestApp({ ...fake.env(), CONNECTOR_XERO_WEBHOOK_SECRET: WEBHOOK_KEY, DELIVERY_RETRY_SCHEDULE: "100ms,200ms" }, { worker: true });
  ada = await createOperator(app, "Ada");
  await connectAccount(app, ada, { connector: "xero", account: "acme-books", provider: fake });
  const triggers = ["invoice_created", "invoice_updated", "contact_created", "contact_updated"].map((trigger) => ({ connector: "xero", trigger }));
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/hooks`, triggers } }, { token: ada.token }));
}, 120_000);

afterAll(async () => {
  await app?.close();
  await Promise.all([receiver?.close(), fake?.close()]);
});

const post = (body: string, headers: Record<string, string>) =>
  fetch(`${app.url}/webhooks/${ada.deploymentId}/xero`, { method: "POST", headers: { "content-type": "application/json; charset=utf-8", ...headers }, body });
const xeroEvents = async () =>
  ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 100 }, { token: ada.token })).deployment!.events.filter((e) => e.connector === "xero");

describe("Xero's intent to receive", () => {
  test("correctly signed empty batches get 200 and wrongly signed ones 401, both with no body, in well under 5 s", async () => {
    for (let i = 0; i < 4; i++) {
      const body = delivery([], 0);
      const started = performance.now();
      const good = await post(body, sign(WEBHOOK_KEY, body));
      const bad = await post(body, sign(randomBytes(64).toString("base64"), body));
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(good.status).toBe(200);
      expect(await good.text()).toBe("");
      expect(good.headers.get("set-cookie")).toBeNull();
      expect(bad.status).toBe(401);
      expect(await bad.text()).toBe("");
      expect(bad.headers.get("set-cookie")).toBeNull();
    }
    // No signature at all is wrongly signed too.
    const unsigned = await post(delivery([], 0), {});
    expect(unsigned.status).toBe(401);
    expect(await unsigned.text()).toBe("");
    expect(await xeroEvents()).toEqual([]);
  });
});

describe("Xero's batched deliveries", () => {
  const invoiceCreated = event("INVOICE", "CREATE", "717f2bfc-c6d4-41fd-b238-3f2f0c0cf777");
  const invoiceUpdated = event("INVOICE", "UPDATE", "717f2bfc-c6d4-41fd-b238-3f2f0c0cf777", TENANT, "2026-01-01T10:05:00.000");
  const contactCreated = event("CONTACT", "CREATE", "4b7c1f2e-8d3a-4e6f-9a0b-1c2d3e4f5a6b");
  const contactUpdated = event("CONTACT", "UPDATE", "4b7c1f2e-8d3a-4e6f-9a0b-1c2d3e4f5a6b", TENANT, "2026-01-01T10:06:00.000");
  const otherOrganisation = event("INVOICE", "CREATE", "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b", OTHER_TENANT);
  const stranger = event("CONTACT", "CREATE", "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", STRANGER);

  test("one delivery: one forwarded event per item of the connection's organisations, routed by tenantId", async () => {
    const body = delivery([invoiceCreated, invoiceUpdated, contactCreated, contactUpdated, otherOrganisation, stranger]);
    const response = await post(body, sign(WEBHOOK_KEY, body));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");

    const stored = await xeroEvents();
    // The connection's second organisation (its metadata.tenants) routes to it too; a stranger's does not.
    expect(stored.map((e) => e.type).sort()).toEqual(["xero.contact_created", "xero.contact_updated", "xero.invoice_created", "xero.invoice_created", "xero.invoice_updated"]);
    for (const e of stored) expect(e.account).toBe("acme-books");
    expect(stored.filter((e) => (e.payload as { tenantId: string }).tenantId === OTHER_TENANT)).toHaveLength(1);
    const updated = stored.find((e) => e.type === "xero.invoice_updated")!;
    expect(updated.payload).toEqual(invoiceUpdated);
    // eventDateUtc names no offset: it is UTC.
    expect(updated.occurredAt).toBe("2026-01-01T10:05:00.000Z");

    await receiver.waitFor((requests) => requests.filter((r) => JSON.parse(r.body).type?.startsWith("xero.")).length === 5);
    const forwarded = receiver.requests.map((r) => JSON.parse(r.body)).filter((b) => b.type?.startsWith("xero."));
    expect(forwarded.find((b) => b.type === "xero.contact_created")).toMatchObject({ account: "acme-books", data: contactCreated });
  });

  test("a redelivery lands once: the same body again, and the same events in another batch", async () => {
    const body = delivery([invoiceCreated, contactCreated], 7);
    // The first body was delivered above with other items; this one holds two of its events again.
    expect((await post(body, sign(WEBHOOK_KEY, body))).status).toBe(200);
    // Xero retries the very same request when it saw no 200.
    expect((await post(body, sign(WEBHOOK_KEY, body))).status).toBe(200);
    expect(await xeroEvents()).toHaveLength(5);
  });

  test("an altered body or another key is refused 401 and stores nothing", async () => {
    const body = delivery([event("CONTACT", "CREATE", "0f1e2d3c-4b5a-4968-8776-655443322110")]);
    const signature = sign(WEBHOOK_KEY, body);
    const altered = await post(body.replace("CREATE", "UPDATE"), signature);
    expect(altered.status).toBe(401);
    expect(await altered.text()).toBe("");
    expect((await post(body, sign("another-webhook-key", body))).status).toBe(401);
    expect(await xeroEvents()).toHaveLength(5);
  });
});
