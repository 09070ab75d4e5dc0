/**
 * Notion's webhook set-up, over HTTP: when a subscription is created Notion POSTs, unsigned and
 * once, `{"verification_token": "secret_…"}` to the webhook URL; the operator pastes that token
 * back into Notion, which from then on signs events with `X-Notion-Signature: sha256=<hex
 * HMAC-SHA256 of the body keyed with the token>` (https://developers.notion.com/reference/webhooks).
 *
 * The request is answered 200 and stored as no event. Anyone who knows the URL can send one, so a
 * received token is never in force by itself: every one is kept sealed and shown, with when it came,
 * to the deployment's owners and admins, and only the one an owner or admin confirms verifies
 * Notion's events (with no webhook secret configured). Until then, events are refused 401.
 */
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { graphql } from "../generated/gql.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { DeploymentEvents, SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, joinByInvitation, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { everyone, expectTenancy, type Who } from "../helpers/tenancy.ts";
import { type Caller, errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const VerificationTokens = graphql(`
  query NotionVerificationTokens($id: ID!) {
    deployment(id: $id) { id webhookVerificationTokens { id connector token receivedAt confirmedAt inForce } }
  }
`);
const ConfirmToken = graphql(`
  mutation NotionConfirmVerificationToken($id: ID!) {
    confirmWebhookVerificationToken(id: $id) { id connector token confirmedAt inForce }
  }
`);
const DiscardToken = graphql(`
  mutation NotionDiscardVerificationToken($deploymentId: ID!, $connector: String!) {
    discardWebhookVerificationToken(deploymentId: $deploymentId, connector: $connector)
  }
`);
const SetCredentials = graphql(`
  mutation NotionSetCredentials($deploymentId: ID!, $connector: String!, $input: ConnectorCredentialsInput!) {
    setConnectorCredentials(deploymentId: $deploymentId, connector: $connector, input: $input) { webhookSecretSet }
  }
`);
const LogIn = graphql(`mutation NotionMemberLogIn($email: String!) { logIn(email: $email, password: "a fine password") { token } }`);
const SignUpMember = graphql(`mutation NotionMemberSignUp($email: String!) { signUp(email: $email, password: "a fine password", name: "Member") { token } }`);
const CatalogFlag = graphql(`query NotionCatalogFlag { connectors { name sendsVerificationToken } }`);

const notion = findConnector("notion")!;
const sample = notion.triggers[0].samplePayload;
const sign = (key: string, body: string) => ({ "x-notion-signature": `sha256=${createHmac("sha256", key).update(body).digest("hex")}` });

let app: TestApp;
let fake: FakeDeclaredProvider;
let receiver: Receiver;
let ada: Operator;
let bea: Operator;
let callers: Record<Who, Caller>;

beforeAll(async () => {
  receiver = await startReceiver();
  fake = await startDeclaredProvider(notion, {
    autoApprove: true,
    tokenExtras: (who) => ({ workspace_id: who.id, workspace_name: who.displayName, bot_id: "bot-1", owner: { type: "user", user: { id: "user-1", name: who.displayName } } }),
  });
  fake.setIdentity({ id: String(sample.workspace_id) });
  // Notion's OAuth app, and deliberately no CONNECTOR_NOTION_WEBHOOK_SECRET: the verification token is the only key.
  app = await startTestApp({ ...fake.env(), DELIVERY_RETRY_SCHEDULE: "100ms,200ms" }, { worker: true });
  ada = await createOperator(app, "Ada");
  bea = await createOperator(app, "Bea");
  const memberEmail = `member-${Date.now()}@example.com`;
  const memberToken = ok(await app.gql(SignUpMember, { email: memberEmail })).signUp.token;
  await joinByInvitation(app.gql, ada.token, ada.organizationId, { email: memberEmail, token: memberToken });
  callers = {
    owner: { token: ada.token },
    member: { token: ok(await app.gql(LogIn, { email: memberEmail })).logIn.token },
    ownKey: { apiKey: ada.apiKey },
    otherUser: { token: bea.token },
    otherKey: { apiKey: bea.apiKey },
    nobody: {},
  };
  await connectAccount(app, ada, { connector: "notion", account: "alice", provider: fake });
  ok(
    await app.gql(
      SaveForwardingSettings,
      { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/hooks`, triggers: [{ connector: "notion", trigger: notion.triggers[0].name }] } },
      { token: ada.token },
    ),
  );
});

afterAll(async () => {
  await app?.close();
  await Promise.all([receiver?.close(), fake?.close()]);
});

const post = (deploymentId: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${app.url}/webhooks/${deploymentId}/notion`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
const verificationBody = (token: string) => JSON.stringify({ verification_token: token });
const held = async (deploymentId = ada.deploymentId, caller: Caller = callers.owner) =>
  ok(await app.gql(VerificationTokens, { id: deploymentId }, caller)).deployment!.webhookVerificationTokens;
const eventCount = async () => ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 100 }, { token: ada.token })).deployment!.events.length;

const token = "secret_tMrlL1qK5vuQAh1b6cZGhFChZTSYJlce98V0pYn7yBl";
const planted = "secret_planted_by_someone_who_knows_the_url";
const idOf = async (value: string, deploymentId = ada.deploymentId) => (await held(deploymentId)).find((t) => t.token === value)!.id;
let eventNumber = 0;
/** A fresh signed Notion event (a new id each time, so never a duplicate). */
const signedEvent = (key: string) => {
  const body = JSON.stringify({ ...sample, id: `event-${++eventNumber}` });
  return { body, headers: sign(key, body) };
};

describe("Notion's verification request", () => {
  test("the catalog says Notion hands over a verification token (as does Gusto), and no other connector", async () => {
    const { connectors } = ok(await app.gql(CatalogFlag));
    expect(connectors.filter((c) => c.sendsVerificationToken).map((c) => c.name)).toEqual(["notion", "gusto"]);
  });

  test("is answered 200 without a signature, stored as no event, and its token shown to owners and admins — unconfirmed, sealed at rest", async () => {
    const before = await eventCount();
    const response = await post(ada.deploymentId, verificationBody(token));
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const answer = await response.text();
    expect(JSON.parse(answer)).toEqual({ verification: "received" });
    expect(answer).not.toContain(token);
    expect(await eventCount()).toBe(before);

    const [shown] = await held();
    expect(shown).toMatchObject({ connector: "notion", token, confirmedAt: null, inForce: false });
    expect(shown.id).toMatch(/^vtk_/);
    expect(Date.now() - Date.parse(shown.receivedAt)).toBeLessThan(60_000);

    // Encrypted at rest like every other secret.
    const rows = await app.database.sql.query<{ token_encrypted: string }>(`select token_encrypted from webhook_verification_token`);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_encrypted).toMatch(/^v1\./);
    expect(rows[0].token_encrypted).not.toContain(token);
  });

  test("until an owner confirms a token, events signed with it are refused 401 and nothing is stored", async () => {
    const before = await eventCount();
    const event = signedEvent(token);
    const refused = await post(ada.deploymentId, event.body, event.headers);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: "invalid_signature" });
    expect(await eventCount()).toBe(before);
  });

  test("a planted token is kept beside the genuine one, with when it came, and is not in force either", async () => {
    expect((await post(ada.deploymentId, verificationBody(planted))).status).toBe(200);
    const tokens = await held();
    expect(tokens.map((t) => t.token)).toEqual([planted, token]);
    expect(tokens.every((t) => t.confirmedAt === null && !t.inForce)).toBe(true);
    expect(Date.parse(tokens[0].receivedAt)).toBeGreaterThanOrEqual(Date.parse(tokens[1].receivedAt));
    const event = signedEvent(planted);
    expect((await post(ada.deploymentId, event.body, event.headers)).status).toBe(401);
  });

  test("only the deployment's owners and admins (and its own key) list or confirm tokens; a member and another organization cannot", async () => {
    for (const who of everyone) {
      expectTenancy(await app.gql(VerificationTokens, { id: ada.deploymentId }, callers[who]), who, ["owner", "ownKey"], "FORBIDDEN");
    }
    const genuine = await idOf(token);
    for (const who of everyone) {
      expectTenancy(await app.gql(ConfirmToken, { id: genuine }, callers[who]), who, ["owner", "ownKey"], "NOT_FOUND");
    }
    expect(errorCode(await app.gql(ConfirmToken, { id: "vtk_no_such_token" }, callers.owner))).toBe("NOT_FOUND");
    // The same deployment's other environment, and another organization's deployment, hold nothing.
    expect(await held(ada.productionDeploymentId)).toEqual([]);
    expect(await held(bea.deploymentId, { token: bea.token })).toEqual([]);
  });

  test("the confirmed token verifies Notion's events, which are forwarded; the planted one and any other key are refused", async () => {
    const genuine = await idOf(token);
    const { confirmWebhookVerificationToken: confirmed } = ok(await app.gql(ConfirmToken, { id: genuine }, callers.owner));
    expect(confirmed).toMatchObject({ id: genuine, token, inForce: true });
    expect(confirmed.confirmedAt).not.toBeNull();
    expect((await held()).map((t) => [t.token, t.inForce])).toEqual([
      [planted, false],
      [token, true],
    ]);

    const event = signedEvent(token);
    const response = await post(ada.deploymentId, event.body, event.headers);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ recorded: 1, forwarded: 1 });
    await receiver.waitFor((requests) => requests.some((r) => JSON.parse(r.body).data?.id === JSON.parse(event.body).id));

    for (const key of [planted, "secret_someone_else"]) {
      const forged = signedEvent(key);
      const refused = await post(ada.deploymentId, forged.body, forged.headers);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: "invalid_signature" });
    }
  });

  test("later verification bodies change nothing in force; confirming another token replaces the confirmed one", async () => {
    expect((await post(ada.deploymentId, verificationBody("secret_yet_another_plant"))).status).toBe(200);
    const event = signedEvent(token);
    expect((await post(ada.deploymentId, event.body, event.headers)).status).toBe(200);

    const renewed = "secret_from_the_recreated_subscription";
    expect((await post(ada.deploymentId, verificationBody(renewed))).status).toBe(200);
    ok(await app.gql(ConfirmToken, { id: await idOf(renewed) }, callers.owner));
    const inForce = (await held()).filter((t) => t.confirmedAt !== null);
    expect(inForce.map((t) => t.token)).toEqual([renewed]);
    const old = signedEvent(token);
    expect((await post(ada.deploymentId, old.body, old.headers)).status).toBe(401);
    const current = signedEvent(renewed);
    expect((await post(ada.deploymentId, current.body, current.headers)).status).toBe(200);
  });

  test("after a discard, a loop of planted tokens never wins: none verifies until confirmed, and only the newest 20 are kept", async () => {
    expect(errorCode(await app.gql(DiscardToken, { deploymentId: ada.deploymentId, connector: "notion" }, callers.member))).toBe("FORBIDDEN");
    expect(errorCode(await app.gql(DiscardToken, { deploymentId: ada.deploymentId, connector: "notion" }, callers.otherUser))).toBe("FORBIDDEN");
    expect(errorCode(await app.gql(DiscardToken, { deploymentId: ada.deploymentId, connector: "nope" }, callers.owner))).toBe("NOT_FOUND");
    expect(ok(await app.gql(DiscardToken, { deploymentId: ada.deploymentId, connector: "notion" }, callers.owner)).discardWebhookVerificationToken).toBe(true);
    expect(await held()).toEqual([]);

    const before = await eventCount();
    for (let i = 0; i < 25; i++) {
      const loop = `secret_loop_${i}`;
      expect((await post(ada.deploymentId, verificationBody(loop))).status).toBe(200);
      const event = signedEvent(loop);
      expect((await post(ada.deploymentId, event.body, event.headers)).status, loop).toBe(401);
    }
    expect(await eventCount()).toBe(before);
    const tokens = await held();
    expect(tokens).toHaveLength(20);
    expect(tokens[0].token).toBe("secret_loop_24");
    expect(tokens.some((t) => t.token === "secret_loop_4")).toBe(false);
    expect(tokens.every((t) => !t.inForce)).toBe(true);

    expect(ok(await app.gql(DiscardToken, { deploymentId: ada.deploymentId, connector: "notion" }, callers.ownKey)).discardWebhookVerificationToken).toBe(true);
    expect(ok(await app.gql(DiscardToken, { deploymentId: ada.deploymentId, connector: "notion" }, callers.owner)).discardWebhookVerificationToken).toBe(false);
  });

  test("anything event-like is not a verification request: unsigned, it is a 401 that stores nothing", async () => {
    const before = await eventCount();
    const bodies = [
      JSON.stringify({ verification_token: "secret_x", type: "page.created" }),
      JSON.stringify({ ...sample, verification_token: "secret_x" }),
      JSON.stringify({ verification_token: 12345 }),
      JSON.stringify({ verification_token: "" }),
      JSON.stringify({ verification_token: "secret_\u0000nul" }),
      JSON.stringify({ verification_token: "x".repeat(513) }),
      JSON.stringify({ verification_token: "secret with spaces" }),
      JSON.stringify({ verification_token: "sécret_‮rtl" }),
      JSON.stringify([{ verification_token: "secret_x" }]),
    ];
    for (const body of bodies) {
      const response = await post(bea.deploymentId, body);
      expect(response.status, body.slice(0, 60)).toBe(401);
      expect(await response.json()).toMatchObject({ code: "invalid_signature" });
    }
    expect(await held(bea.deploymentId, { token: bea.token })).toEqual([]);
    expect(await eventCount()).toBe(before);
    // An unknown deployment is still a 404, and keeps nothing.
    expect((await post("no-such-deployment", verificationBody(token))).status).toBe(404);
  });

  test("with a webhook secret configured, even a confirmed verification token is shown but never becomes the key", async () => {
    const deploymentId = ada.productionDeploymentId;
    ok(
      await app.gql(
        SetCredentials,
        { deploymentId, connector: "notion", input: { clientId: "own-client", clientSecret: "own-secret", webhookSecret: "the-configured-secret" } },
        { token: ada.token },
      ),
    );
    expect((await post(deploymentId, verificationBody("secret_unsigned_newcomer"))).status).toBe(200);
    ok(await app.gql(ConfirmToken, { id: await idOf("secret_unsigned_newcomer", deploymentId) }, callers.owner));
    expect(await held(deploymentId)).toMatchObject([{ connector: "notion", token: "secret_unsigned_newcomer", inForce: false }]);

    const body = JSON.stringify({ ...sample, id: "production-event" });
    expect((await post(deploymentId, body, sign("secret_unsigned_newcomer", body))).status).toBe(401);
    // The configured secret still verifies (no account is connected there: stored nowhere, but accepted).
    const accepted = await post(deploymentId, body, sign("the-configured-secret", body));
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ unrouted: 1 });
  });
});
