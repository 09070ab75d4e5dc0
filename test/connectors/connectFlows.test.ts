/**
 * Every connector in the registry, connected end to end through Switchyard's hosted flow against
 * a fake provider made from its declaration (test/helpers/fakeProviders/declared.ts): the
 * authorize parameters it declares, the token exchange in its declared client-authentication
 * style, the identity read at its declared path, and a refresh where it declares refresh tokens.
 * Connectors whose identity is code (`identity.read`) run against their own hand-written fake.
 * Then its inbound webhook, signed per its declared scheme for the connected account: accepted;
 * with a wrong secret, an altered body, a stale timestamp or a missing header: 401, nothing stored.
 * A connector added to providers/index.ts is covered here without touching this file.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { allConnectors, connectorEnvPrefix, findConnector } from "../../src/connectors/registry.ts";
import type { ConnectorDefinition } from "../../src/connectors/types.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeOAuthServer, startFakeJira, startFakeSlack } from "../helpers/fakeProviders/index.ts";
import { setAt, startDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { BIGCOMMERCE_CONTEXT, startFakeBigCommerce } from "../helpers/fakeProviders/bigcommerce.ts";
import { secretForScheme, signForScheme } from "../helpers/schemeSigner.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

const catalog = allConnectors();

interface Fake extends FakeOAuthServer<any> {
  env(): Record<string, string>;
}

/** Every connector an end user authorizes with OAuth (API_KEY and BASIC ones: credentialFlows.test.ts; APP_INSTALLATION ones: githubApp.test.ts; NONE ones never are). */
const connectors = catalog.filter((def) => def.declaration.oauth && def.authMode === "OAUTH2");

/** Hand-written fakes, only for connectors whose identity reading is code. */
const CODE_IDENTITY_FAKES: Record<string, () => Promise<{ fake: Fake; externalId: (fake: Fake) => string }>> = {
  slack: async () => ({ fake: await startFakeSlack({ tokenRotation: true }), externalId: (f) => f.getIdentity().userId }),
  jira: async () => ({ fake: await startFakeJira(), externalId: (f) => f.getIdentity().accountId }),
  // Confluence reads the same two Atlassian endpoints as Jira (the sites, then /me).
  confluence: async () => {
    const jira = await startFakeJira();
    const env = () =>
      Object.fromEntries(Object.entries(jira.env()).flatMap(([k, v]) => (k.endsWith("_WEBHOOK_SECRET") ? [] : [[k.replace("CONNECTOR_JIRA_", "CONNECTOR_CONFLUENCE_"), v]])));
    return { fake: Object.assign(Object.create(jira) as typeof jira, { env }), externalId: (f) => f.getIdentity().accountId };
  },
  // Notion names the workspace in the token answer; Xero lists the organisations at GET /connections.
  notion: async () => ({
    fake: await startDeclaredProvider(findConnector("notion")!, {
      tokenExtras: (who) => ({ workspace_id: who.id, workspace_name: who.displayName, bot_id: "bot-1", owner: { type: "user", user: { id: "user-1", name: who.displayName } } }),
    }),
    externalId: (f) => f.getIdentity().id,
  }),
  // Shopify's Admin API takes the token in X-Shopify-Access-Token; the store is named by its myshopify.com domain.
  shopify: async () => ({
    fake: await startDeclaredProvider(findConnector("shopify")!, {
      routes: [
        {
          method: "GET",
          path: "/acme-store/api/admin/api/2026-01/shop.json",
          handle: (req, ctx) => {
            const token = req.headers["x-shopify-access-token"];
            const grant = req.headers.authorization ? undefined : ctx.authenticate({ ...req, headers: { ...req.headers, authorization: `Bearer ${String(token)}` } });
            if (!grant) return jsonReply(401, { errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" });
            return jsonReply(200, { shop: { id: 548380009, name: grant.identity.displayName, myshopify_domain: `${grant.identity.id}.myshopify.com`, email: "j.smith@example.com", currency: "USD" } });
          },
        },
      ],
    }),
    externalId: (f) => `${f.getIdentity().id}.myshopify.com`,
  }),
  xero: async () => ({
    fake: await startDeclaredProvider(findConnector("xero")!, {
      routes: [
        {
          method: "GET",
          path: "/api/connections",
          handle: (req, ctx) => {
            const grant = ctx.authenticate(req);
            if (!grant) return jsonReply(401, { Title: "Unauthorized" });
            return jsonReply(200, [{ id: "e1eede29-f875-4a5d-8470-17f6a29a88b1", tenantId: grant.identity.id, tenantType: "ORGANISATION", tenantName: grant.identity.displayName }]);
          },
        },
      ],
    }),
    externalId: (f) => f.getIdentity().id,
  }),
  // BigCommerce names the store in the redirect and the token answer (context), not at an identity endpoint.
  bigcommerce: async () => ({ fake: await startFakeBigCommerce(), externalId: () => BIGCOMMERCE_CONTEXT }),
};

const providers = new Map<string, { fake: Fake; externalId: string }>();
let app: TestApp;
let ada: Operator;

beforeAll(async () => {
  for (const def of connectors) {
    if (def.declaration.identity!.read) {
      const start = CODE_IDENTITY_FAKES[def.name];
      if (!start) throw new Error(`${def.name} reads its identity with code: add its fake to CODE_IDENTITY_FAKES`);
      const { fake, externalId } = await start();
      providers.set(def.name, { fake, externalId: externalId(fake) });
    } else {
      const fake = await startDeclaredProvider(def);
      const id = fake.getIdentity().id;
      providers.set(def.name, { fake, externalId: def.declaration.identity!.lowercaseId ? id.toLowerCase() : id });
    }
  }
  const env = Object.assign({}, ...[...providers.values()].map(({ fake }) => fake.env()));
  for (const def of connectors) {
    const scheme = def.declaration.webhook?.scheme;
    if (scheme) env[`${connectorEnvPrefix(def)}WEBHOOK_SECRET`] = secretForScheme(scheme);
  }
  app = await startTestApp(env);
  ada = await createOperator(app, "Ada");
}, 120_000);

afterAll(async () => {
  await app?.close();
  await Promise.all([...providers.values()].map(({ fake }) => fake.close()));
});

describe.each(connectors.map((def) => [def.name, def] as [string, ConnectorDefinition]))("%s", (name, def) => {
  test("connects with the declared authorize parameters, client authentication and identity", async () => {
    const { fake, externalId } = providers.get(name)!;
    const account = await connectAccount(app, ada, { connector: name, account: `user-of-${name}`, provider: fake });
    expect(account).toMatchObject({ connector: name, externalId, status: "ACTIVE" });

    const oauth = def.declaration.oauth!;
    const authorize = fake.authorizeRequests.at(-1)!;
    expect(authorize.get("client_id")).toBe(fake.env()[`${connectorEnvPrefix(def)}CLIENT_ID`]);
    expect(authorize.get("response_type")).toBe("code");
    expect(authorize.get("redirect_uri")).toBe(`${app.url}/oauth/callback`);
    expect(authorize.get("state")).toBeTruthy();
    if (oauth.scopes.length > 0) expect(authorize.get(oauth.scopeParam)).toBe(oauth.scopes.join(oauth.scopeSeparator));
    else expect(authorize.has(oauth.scopeParam)).toBe(false);
    expect(authorize.get("code_challenge_method")).toBe(oauth.pkce ? "S256" : null);
    for (const [param, value] of Object.entries(oauth.extraAuthorizeParams)) expect(authorize.get(param), param).toBe(value);

    const exchange = fake.tokenRequests.filter((r) => r.grantType === "authorization_code").at(-1)!;
    expect(exchange.clientAuth).toBe(oauth.clientAuth);
    expect(exchange.params.code_verifier !== undefined).toBe(oauth.pkce);

    const stored = await app.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id: account.id } });
    expect(stored.refreshTokenEncrypted !== null).toBe(oauth.refresh);
  });

  test.runIf(def.declaration.oauth!.refresh)("refreshes an expired token at the token endpoint, in the declared style", async () => {
    const { fake } = providers.get(name)!;
    const account = await app.database.prisma.connectedAccount.findFirstOrThrow({ where: { connector: name, account: `user-of-${name}` } });
    await app.database.prisma.connectedAccount.update({ where: { id: account.id }, data: { tokenExpiresAt: new Date(Date.now() - 1000) } });
    const token = await app.app.accessTokens.fresh(account.id);
    const refresh = fake.tokenRequests.filter((r) => r.grantType === "refresh_token").at(-1);
    expect(refresh?.clientAuth).toBe(def.declaration.oauth!.clientAuth);
    expect(fake.grants.find((g) => g.accessToken === token)?.grantType).toBe("refresh_token");
  });

  const scheme = def.declaration.webhook?.scheme;
  const signable = scheme && signForScheme(scheme, "x", "{}", new Date()) !== undefined && def.declaration.webhook?.event;
  test.runIf(Boolean(signable))("verifies its inbound webhooks with the declared scheme; refused requests store nothing", async () => {
    const webhook = def.declaration.webhook!;
    const { externalId } = providers.get(name)!;
    const trigger = def.declaration.triggers.filter((t) => !t.when && !t.shape).at(-1) ?? def.declaration.triggers.find((t) => !t.when)!;
    // The smallest body the declaration maps to `trigger` and routes to the connected account.
    const body: Record<string, unknown> = {};
    const headers: Record<string, string> = { "content-type": "application/json" };
    const [event, action] = webhook.event!.actionPath ? trigger.providerEvent.split(/\.(.*)/s) : [trigger.providerEvent];
    if (webhook.event!.header) headers[webhook.event!.header] = event;
    else setAt(body, webhook.event!.path!, event);
    if (action) setAt(body, webhook.event!.actionPath!, action);
    if (webhook.routing[0]) setAt(body, webhook.routing[0], externalId);
    else headers[webhook.routingHeaders[0]] = externalId;
    // A batched delivery (Asana's `events`) carries the event as its one item.
    const batch: Record<string, unknown> = {};
    if (webhook.batch?.path) setAt(batch, webhook.batch.path, [body]);
    const delivered: unknown = webhook.batch ? (webhook.batch.path ? batch : [body]) : body;
    const raw = JSON.stringify(delivered);
    const secret = secretForScheme(webhook.scheme);
    const url = `${app.url}/webhooks/${ada.deploymentId}/${name}`;
    const post = (extra: Record<string, string>, payload = raw) => fetch(url, { method: "POST", headers: { ...headers, ...extra }, body: payload });
    const stored = () => app.database.prisma.triggerEvent.count({ where: { connector: name } });

    const before = await stored();
    // Past every declared window (Box allows ten minutes).
    const stale = new Date(Date.now() - 15 * 60_000);
    const refused: Array<[string, Record<string, string>, string]> = [
      ["wrong secret", signForScheme(webhook.scheme, `${secret}x`.replace(/^whsec_/, "whsec_A"), raw, new Date(), url)!, raw],
      ["missing header", {}, raw],
    ];
    // A shared token in a header (GitLab, Pipedrive) does not cover the body.
    if (webhook.scheme.type !== "token") refused.push(["altered body", signForScheme(webhook.scheme, secret, raw, new Date(), url)!, raw.replace("}", ',"x":1}')]);
    const timestamped = webhook.scheme.type !== "token" && ("own" in webhook.scheme || webhook.scheme.type !== "hmac" || webhook.scheme.timestampHeader);
    if (timestamped) refused.push(["stale timestamp", signForScheme(webhook.scheme, secret, raw, stale, url)!, raw]);
    for (const [label, signature, payload] of refused) {
      const response = await post(signature, payload);
      expect(response.status, label).toBe(401);
      // Xero wants bare answers: the status says it all.
      if (webhook.emptyAnswers) expect(await response.text(), label).toBe("");
      else expect((await response.json()).code, label).toBe("invalid_signature");
    }
    expect(await stored()).toBe(before);

    const accepted = await post(signForScheme(webhook.scheme, secret, raw, new Date(), url)!);
    expect(accepted.status).toBe(200);
    if (webhook.emptyAnswers) expect(await accepted.text()).toBe("");
    else expect(await accepted.json()).toMatchObject({ received: 1, recorded: 1, unrouted: 0 });
    const [latest] = await app.database.prisma.triggerEvent.findMany({ where: { connector: name }, orderBy: { receivedAt: "desc" }, take: 1 });
    expect(latest.trigger).toBe(trigger.name);
    if (!trigger.shape) expect(latest.payload).toEqual(body);
  });
});
