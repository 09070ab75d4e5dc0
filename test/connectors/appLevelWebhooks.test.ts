/**
 * Two connectors of the second catalog round whose triggers arrive through one app-level webhook,
 * registered once by the operator and routed by an id in the payload, driven over HTTP end to end.
 *
 * Gusto (https://docs.gusto.com/app-integrations/docs/webhooks): the subscription first POSTs,
 * unsigned, `{"verification_token": …}`; once an owner confirms it, events signed `X-Gusto-Signature`
 * (hex HMAC-SHA256 of the body keyed with that token) name the company in `resource_uuid`, which is
 * the account's id from `GET /v1/token_info`.
 *
 * Jobber (https://developer.getjobber.com/docs/using_jobbers_api/setting_up_webhooks/): events are
 * signed `X-Jobber-Hmac-SHA256` (base64 HMAC-SHA256 of the body) with the app's OAuth client secret
 * and name the account in `data.webHookEvent.accountId`.
 */
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { graphql } from "../generated/gql.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { DeploymentEvents, SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const VerificationTokens = graphql(`
  query AppLevelVerificationTokens($id: ID!) {
    deployment(id: $id) { id webhookVerificationTokens { id connector token inForce } }
  }
`);
const ConfirmToken = graphql(`
  mutation AppLevelConfirmVerificationToken($id: ID!) {
    confirmWebhookVerificationToken(id: $id) { id inForce }
  }
`);

const gusto = findConnector("gusto")!;
const jobber = findConnector("jobber")!;
const gustoCompany = String(gusto.triggers[0].samplePayload.resource_uuid);
const jobberAccount = String((jobber.triggers[0].samplePayload.data as { webHookEvent: { accountId: string } }).webHookEvent.accountId);
const mac = (key: string, body: string, encoding: "hex" | "base64") => createHmac("sha256", key).update(body).digest(encoding);

let app: TestApp;
let gustoFake: FakeDeclaredProvider;
let jobberFake: FakeDeclaredProvider;
let receiver: Receiver;
let ada: Operator;

beforeAll(async () => {
  receiver = await startReceiver();
  gustoFake = await startDeclaredProvider(gusto, { autoApprove: true });
  gustoFake.setIdentity({ id: gustoCompany });
  jobberFake = await startDeclaredProvider(jobber, { autoApprove: true });
  jobberFake.setIdentity({ id: jobberAccount, displayName: "Acme Lawn Care" });
  // No CONNECTOR_GUSTO_WEBHOOK_SECRET: Gusto's confirmed verification token is the only key. Jobber
  // signs with the app's client secret, so the operator configures that as Jobber's webhook secret.
  const env = { ...gustoFake.env(), ...jobberFake.env() };
  env.CONNECTOR_JOBBER_WEBHOOK_SECRET = env.CONNECTOR_JOBBER_CLIENT_SECRET;
  app = await startTestApp({ ...env, DELIVERY_RETRY_SCHEDULE: "100ms,200ms" }, { worker: true });
  ada = await createOperator(app, "Ada");
  await connectAccount(app, ada, { connector: "gusto", account: "acme-payroll", provider: gustoFake });
  await connectAccount(app, ada, { connector: "jobber", account: "acme-field", provider: jobberFake });
  ok(
    await app.gql(
      SaveForwardingSettings,
      {
        deploymentId: ada.deploymentId,
        input: {
          forwardingUrl: `${receiver.url}/hooks`,
          triggers: [
            { connector: "gusto", trigger: "payroll_paid" },
            { connector: "jobber", trigger: "client_created" },
          ],
        },
      },
      { token: ada.token },
    ),
  );
});

afterAll(async () => {
  await app?.close();
  await Promise.all([receiver?.close(), gustoFake?.close(), jobberFake?.close()]);
});

const post = (connector: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${app.url}/webhooks/${ada.deploymentId}/${connector}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
/** The providers' events (the connections' own switchyard.connection_created events left out). */
const events = async () =>
  ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 100 }, { token: ada.token })).deployment!.events.filter((e) => !e.type.startsWith("switchyard."));

describe("Gusto's app-level subscription", () => {
  const token = "6590f590-3dba-495e-9bea-c361e1e2efc0";
  const paid = gusto.triggers.find((t) => t.name === "payroll_paid")!.samplePayload;

  test("the verification POST is answered 200 and held for an owner; events signed with it are refused until confirmed", async () => {
    const response = await post("gusto", JSON.stringify({ verification_token: token }));
    expect(response.status).toBe(200);
    const held = ok(await app.gql(VerificationTokens, { id: ada.deploymentId }, { token: ada.token })).deployment!.webhookVerificationTokens;
    expect(held).toEqual([expect.objectContaining({ connector: "gusto", token, inForce: false })]);

    const body = JSON.stringify(paid);
    const refused = await post("gusto", body, { "x-gusto-signature": mac(token, body, "hex") });
    expect(refused.status).toBe(401);
    expect(await events()).toEqual([]);
  });

  test("once confirmed, a signed event is routed to the company's account by resource_uuid and forwarded; a retry is one event", async () => {
    const [held] = ok(await app.gql(VerificationTokens, { id: ada.deploymentId }, { token: ada.token })).deployment!.webhookVerificationTokens;
    expect(ok(await app.gql(ConfirmToken, { id: held.id }, { token: ada.token })).confirmWebhookVerificationToken.inForce).toBe(true);

    const body = JSON.stringify(paid);
    const headers = { "x-gusto-signature": mac(token, body, "hex") };
    const response = await post("gusto", body, headers);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ recorded: 1, forwarded: 1 });
    // Gusto re-sends the same event (same `uuid`) when it saw no 2xx.
    expect((await post("gusto", body, headers)).status).toBe(200);

    const stored = (await events()).filter((e) => e.connector === "gusto");
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ type: "gusto.payroll_paid", account: "acme-payroll", occurredAt: new Date(Number(paid.timestamp) * 1000).toISOString() });
    await receiver.waitFor((requests) => requests.some((r) => JSON.parse(r.body).type === "gusto.payroll_paid"));

    const forged = await post("gusto", body, { "x-gusto-signature": mac("another-token", body, "hex") });
    expect(forged.status).toBe(401);
  });
});

describe("Jobber's app-level webhook", () => {
  const created = jobber.triggers.find((t) => t.name === "client_created")!.samplePayload;

  test("an event signed with the app's client secret is routed by data.webHookEvent.accountId and forwarded", async () => {
    const secret = jobberFake.env().CONNECTOR_JOBBER_CLIENT_SECRET;
    const body = JSON.stringify(created);
    const response = await post("jobber", body, { "x-jobber-hmac-sha256": mac(secret, body, "base64") });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ recorded: 1, forwarded: 1 });
    const stored = (await events()).filter((e) => e.connector === "jobber");
    expect(stored).toEqual([expect.objectContaining({ type: "jobber.client_created", account: "acme-field" })]);
    await receiver.waitFor((requests) => requests.some((r) => JSON.parse(r.body).type === "jobber.client_created"));
  });

  test("a wrong key or an altered body is refused 401", async () => {
    const body = JSON.stringify(created);
    expect((await post("jobber", body, { "x-jobber-hmac-sha256": mac("not-the-client-secret", body, "base64") })).status).toBe(401);
    const signature = mac(jobberFake.env().CONNECTOR_JOBBER_CLIENT_SECRET, body, "base64");
    expect((await post("jobber", body.replace("CLIENT_CREATE", "CLIENT_UPDATE"), { "x-jobber-hmac-sha256": signature })).status).toBe(401);
  });
});
