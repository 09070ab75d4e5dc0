import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { graphql } from "../generated/gql.ts";
import { connectAccount, connectedAccounts, formIn, getAuthUrl, hop, walkConnectFlow } from "../helpers/connectFlow.ts";
import { startFakeGitHub, type FakeGitHub } from "../helpers/fakeProviders/index.ts";
import { createOperator, joinByInvitation, type Operator } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const Catalog = graphql(`
  query ConnectorCatalog {
    connectors { name displayName category description icon scopes triggers { name displayName description samplePayload } }
  }
`);
const CatalogSetup = graphql(`
  query ConnectorCatalogSetup {
    connectors { name serviceCredentialsConfigured webhookUrlTemplate revokesGrantOnDelete triggers { name providerEvent } }
  }
`);
const OneConnector = graphql(`
  query OneConnector($name: String!) { connector(name: $name) { name displayName category triggers { name } } }
`);
const SetCredentials = graphql(`
  mutation SetConnectorCredentials($deploymentId: ID!, $connector: String!, $input: ConnectorCredentialsInput!) {
    setConnectorCredentials(deploymentId: $deploymentId, connector: $connector, input: $input) { connector clientId clientSecretSet webhookSecretSet updatedAt }
  }
`);
const DeleteCredentials = graphql(`
  mutation DeleteConnectorCredentials($deploymentId: ID!, $connector: String!) { deleteConnectorCredentials(deploymentId: $deploymentId, connector: $connector) }
`);
const DeploymentConnectors = graphql(`
  query DeploymentConnectors($id: ID!, $connector: String!) {
    deployment(id: $id) { id connectorCredentials { connector clientId clientSecretSet webhookSecretSet updatedAt } webhookUrl(connector: $connector) }
  }
`);
const Disconnect = graphql(`
  mutation DisconnectAccount($id: ID!) { disconnectAccount(id: $id) { id connector account status scopes lastRefreshedAt } }
`);

let app: TestApp;
/** The secret a deployment's inbound GitHub webhooks are verified with. */
const inboundSecret = async (deploymentId: string) =>
  (await app.app.inboundSecrets.get(deploymentId, { name: "github" }))?.webhookSecret;
let github: FakeGitHub;
let ada: Operator;
let eve: Operator;

beforeAll(async () => {
  github = await startFakeGitHub();
  github.registerClient("ada-own-github-app", "ada-own-github-secret");
  app = await startTestApp(github.env());
  [ada, eve] = [await createOperator(app, "Ada"), await createOperator(app, "Eve")];
});
afterAll(async () => {
  await app.close();
  await github.close();
});

describe("the connector catalog", () => {
  test("lists the catalog's connectors with their triggers and sample payloads, to anyone", async () => {
    const { connectors } = ok(await app.gql(Catalog, {}));
    const names = connectors.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(["github", "gmail", "jira", "slack", "stripe", "linear"]));
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(30);
    const github = connectors.find((c) => c.name === "github")!;
    expect(github).toMatchObject({ displayName: "GitHub", category: "issue_tracker", scopes: ["read:user"] });
    expect(github.icon).toMatch(/^<svg/);
    expect(github.triggers.slice(0, 4).map((t) => t.name)).toEqual(["issue_opened", "issue_closed", "issue_comment_created", "pull_request_opened"]);
    expect((github.triggers[0].samplePayload as { action: string }).action).toBe("opened");
    expect(connectors.find((c) => c.name === "gmail")!.triggers.map((t) => t.name)).toEqual(["email_sent", "email_received"]);
  });

  test("says whether the service's own OAuth client exists, where webhooks go, and each trigger's provider event", async () => {
    const { connectors } = ok(await app.gql(CatalogSetup, {}));
    const github = connectors.find((c) => c.name === "github")!;
    // Only CONNECTOR_GITHUB_CLIENT_ID/_CLIENT_SECRET are set for this service.
    expect(github.serviceCredentialsConfigured).toBe(true);
    expect(connectors.find((c) => c.name === "gmail")!.serviceCredentialsConfigured).toBe(false);
    expect(github.webhookUrlTemplate).toBe(`${app.url}/webhooks/{deploymentId}/github`);
    const byName = Object.fromEntries(github.triggers.map((t) => [t.name, t.providerEvent]));
    expect(byName).toMatchObject({ issue_opened: "issues.opened", push: "push", issues_edited: "issues.edited" });
    expect(connectors.find((c) => c.name === "slack")!.triggers.find((t) => t.name === "reaction_added")!.providerEvent).toBe("reaction_added");
  });

  test("says whether deleting a connection revokes its grant at the provider", async () => {
    const { connectors } = ok(await app.gql(CatalogSetup, {}));
    const revokes = (name: string) => connectors.find((c) => c.name === name)!.revokesGrantOnDelete;
    expect([revokes("github"), revokes("google_docs"), revokes("xero")]).toEqual([true, true, true]);
    // Microsoft documents no way to revoke one app's grant; an API key is the end user's to revoke.
    expect([revokes("microsoft"), revokes("airtable_pat")]).toEqual([false, false]);
  });

  test("connector(name) finds one; an unknown name is null", async () => {
    expect(ok(await app.gql(OneConnector, { name: "slack" })).connector).toMatchObject({ name: "slack", category: "chat" });
    expect(ok(await app.gql(OneConnector, { name: "nope" })).connector).toBeNull();
  });
});

describe("the operator's own OAuth app (setConnectorCredentials)", () => {
  test("is stored sealed and never readable back, only clientSecretSet", async () => {
    const { setConnectorCredentials } = ok(
      await app.gql(
        SetCredentials,
        { deploymentId: ada.deploymentId, connector: "github", input: { clientId: "ada-own-github-app", clientSecret: "ada-own-github-secret", webhookSecret: "ada-hook-secret" } },
        { token: ada.token },
      ),
    );
    expect(setConnectorCredentials).toMatchObject({ connector: "github", clientId: "ada-own-github-app", clientSecretSet: true, webhookSecretSet: true });
    const read = await app.gql(DeploymentConnectors, { id: ada.deploymentId, connector: "github" }, { token: ada.token });
    expect(ok(read).deployment!.connectorCredentials).toEqual([{ ...setConnectorCredentials }]);
    expect(JSON.stringify(read)).not.toContain("ada-own-github-secret");
    expect(JSON.stringify(read)).not.toContain("ada-hook-secret");
    const row = await app.database.prisma.connectorCredentials.findFirstOrThrow({ where: { deploymentId: ada.deploymentId } });
    expect(JSON.stringify(row)).not.toContain("ada-own-github-secret");
    expect(JSON.stringify(row)).not.toContain("ada-hook-secret");
    const resolved = await app.app.clientCredentials.resolve(ada.deploymentId, "github");
    expect(resolved).toEqual({ clientId: "ada-own-github-app", clientSecret: "ada-own-github-secret", source: "operator" });
    expect(await inboundSecret(ada.deploymentId)).toBe("ada-hook-secret");
  });

  test("with it the consent page is skipped and the provider sees the operator's app", async () => {
    const account = await connectAccount(app, ada, { connector: "github", account: "own-app", provider: github });
    expect(account.status).toBe("ACTIVE");
    expect(github.authorizeRequests.at(-1)!.get("client_id")).toBe("ada-own-github-app");
    expect(github.tokenRequests.at(-1)!.params.client_id).toBe("ada-own-github-app");
    const walk = await walkConnectFlow(await getAuthUrl(app, ada.apiKey, "github", "own-app-2"), { stopAtProvider: true });
    expect(walk.consentShown).toBe(false);
    // Even asked for directly, the consent page sends the user back to the start.
    const start = walk.hops[0];
    const consent = await hop("GET", `${start.url}/consent`);
    expect(consent.status).toBe(303);
    expect(consent.location).toBe(start.url);
  });

  test("other deployments keep the service defaults (and the consent page)", async () => {
    expect(await app.app.clientCredentials.resolve(eve.deploymentId, "github")).toEqual({
      clientId: github.clientId,
      clientSecret: github.clientSecret,
      source: "service",
    });
    expect(await inboundSecret(eve.deploymentId)).toBe(github.webhookSecret);
    const walk = await walkConnectFlow(await getAuthUrl(app, eve.apiKey, "github", "eve-user"));
    expect(walk.consentShown).toBe(true);
    expect(walk.final.status).toBe(200);
    expect(github.tokenRequests.at(-1)!.params.client_id).toBe(github.clientId);
  });

  test("without a webhook secret of its own, the service default is used for webhooks", async () => {
    ok(await app.gql(SetCredentials, { deploymentId: ada.productionDeploymentId, connector: "github", input: { clientId: "x", clientSecret: "y" } }, { token: ada.token }));
    const resolved = await app.app.clientCredentials.resolve(ada.productionDeploymentId, "github");
    expect(resolved).toMatchObject({ clientId: "x", source: "operator" });
    expect(await inboundSecret(ada.productionDeploymentId)).toBe(github.webhookSecret);
    const { deployment } = ok(await app.gql(DeploymentConnectors, { id: ada.productionDeploymentId, connector: "github" }, { token: ada.token }));
    expect(deployment!.connectorCredentials[0]).toMatchObject({ clientSecretSet: true, webhookSecretSet: false });
  });

  test("deleting it goes back to the defaults; deleting again answers false", async () => {
    expect(ok(await app.gql(DeleteCredentials, { deploymentId: ada.productionDeploymentId, connector: "github" }, { token: ada.token })).deleteConnectorCredentials).toBe(true);
    expect(ok(await app.gql(DeleteCredentials, { deploymentId: ada.productionDeploymentId, connector: "github" }, { token: ada.token })).deleteConnectorCredentials).toBe(false);
    expect((await app.app.clientCredentials.resolve(ada.productionDeploymentId, "github")).source).toBe("service");
  });

  test("bad input is BAD_USER_INPUT naming the field; an unknown connector is NOT_FOUND, as on REST", async () => {
    const unknown = await app.gql(SetCredentials, { deploymentId: ada.productionDeploymentId, connector: "nope", input: { clientId: "a", clientSecret: "b" } }, { token: ada.token });
    expect(errorCode(unknown)).toBe("NOT_FOUND");
    expect(unknown.errors![0].message).toBe('There is no connector named "nope".');
    const cases = [
      { connector: "github", input: { clientId: "  ", clientSecret: "b" }, field: "clientId" },
      { connector: "github", input: { clientId: "a", clientSecret: "" }, field: "clientSecret" },
      { connector: "github", input: { clientId: "a\nb", clientSecret: "b" }, field: "clientId" },
      { connector: "github", input: { clientId: "a".repeat(513), clientSecret: "b" }, field: "clientId" },
    ];
    for (const { connector, input, field } of cases) {
      const result = await app.gql(SetCredentials, { deploymentId: ada.productionDeploymentId, connector, input }, { token: ada.token });
      expect(errorCode(result), JSON.stringify(input)).toBe("BAD_USER_INPUT");
      expect(JSON.stringify(result.errors![0].extensions)).toContain(field);
    }
    expect(errorCode(await app.gql(DeleteCredentials, { deploymentId: ada.deploymentId, connector: "nope" }, { token: ada.token }))).toBe("NOT_FOUND");
  });
});

describe("webhookUrl", () => {
  test("is the URL to register at the provider", async () => {
    const { deployment } = ok(await app.gql(DeploymentConnectors, { id: ada.deploymentId, connector: "slack" }, { token: ada.token }));
    expect(deployment!.webhookUrl).toBe(`${app.url}/webhooks/${ada.deploymentId}/slack`);
    expect(errorCode(await app.gql(DeploymentConnectors, { id: ada.deploymentId, connector: "nope" }, { token: ada.token }))).toBe("NOT_FOUND");
  });
});

describe("disconnectAccount", () => {
  test("sets DISCONNECTED and wipes the tokens; a new auth-url connects it again", async () => {
    const account = await connectAccount(app, eve, { connector: "github", account: "leaver", provider: github });
    const { disconnectAccount } = ok(await app.gql(Disconnect, { id: account.id }, { token: eve.token }));
    expect(disconnectAccount).toMatchObject({ id: account.id, status: "DISCONNECTED" });
    const row = await app.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id: account.id } });
    expect(row.accessTokenEncrypted).toBe("");
    expect(row.refreshTokenEncrypted).toBeNull();
    const again = await connectAccount(app, eve, { connector: "github", account: "leaver", provider: github });
    expect(again).toMatchObject({ id: account.id, status: "ACTIVE" });
  });
});

describe("who may do what", () => {
  test("another organization's user, another deployment's key and nobody are refused", async () => {
    const target = { deploymentId: ada.deploymentId, connector: "jira", input: { clientId: "a", clientSecret: "b" } };
    const eveKeyOnAda = await app.gql(SetCredentials, target, { apiKey: eve.apiKey });
    expect(errorCode(eveKeyOnAda)).toBe("FORBIDDEN");
    expect(errorCode(await app.gql(SetCredentials, target, { token: eve.token }))).toBe("FORBIDDEN");
    expect(errorCode(await app.gql(SetCredentials, target, {}))).toBe("UNAUTHENTICATED");
    // Ada's own production key cannot touch her development deployment either.
    const delTarget = { deploymentId: ada.deploymentId, connector: "github" };
    expect(errorCode(await app.gql(DeleteCredentials, delTarget, { token: eve.token }))).toBe("FORBIDDEN");
    expect(errorCode(await app.gql(DeleteCredentials, delTarget, { apiKey: eve.apiKey }))).toBe("FORBIDDEN");
    expect(errorCode(await app.gql(DeleteCredentials, delTarget, {}))).toBe("UNAUTHENTICATED");
    expect(errorCode(await app.gql(DeploymentConnectors, { id: ada.deploymentId, connector: "github" }, { token: eve.token }))).toBe("FORBIDDEN");
    expect(errorCode(await app.gql(DeploymentConnectors, { id: ada.deploymentId, connector: "github" }, { apiKey: eve.apiKey }))).toBe("FORBIDDEN");
    expect(errorCode(await app.gql(DeploymentConnectors, { id: ada.deploymentId, connector: "github" }, {}))).toBe("UNAUTHENTICATED");
    // The deployment's own key may (it administers its deployment).
    expect(ok(await app.gql(DeploymentConnectors, { id: ada.deploymentId, connector: "github" }, { apiKey: ada.apiKey })).deployment!.id).toBe(ada.deploymentId);

    const adaAccount = (await connectedAccounts(app, ada)).find((a) => a.account === "own-app")!;
    expect(errorCode(await app.gql(Disconnect, { id: adaAccount.id }, { token: eve.token }))).toBe("NOT_FOUND");
    expect(errorCode(await app.gql(Disconnect, { id: adaAccount.id }, { apiKey: eve.apiKey }))).toBe("NOT_FOUND");
    expect(errorCode(await app.gql(Disconnect, { id: adaAccount.id }, {}))).toBe("UNAUTHENTICATED");
    expect(errorCode(await app.gql(Disconnect, { id: "no-such-account" }, { token: ada.token }))).toBe("NOT_FOUND");
    expect((await connectedAccounts(app, ada)).find((a) => a.id === adaAccount.id)!.status).toBe("ACTIVE");
  });

  test("members read accounts and credentials but cannot change them", async () => {
    const mia = await createOperator(app, "Mia");
    await joinByInvitation(app.gql, ada.token, ada.organizationId, mia);
    const read = ok(await app.gql(DeploymentConnectors, { id: ada.deploymentId, connector: "github" }, { token: mia.token }));
    expect(read.deployment!.connectorCredentials).toHaveLength(1);
    const accounts = await connectedAccounts(app, { token: mia.token, deploymentId: ada.deploymentId });
    expect(accounts.length).toBeGreaterThan(0);
    expect(errorCode(await app.gql(SetCredentials, { deploymentId: ada.deploymentId, connector: "jira", input: { clientId: "a", clientSecret: "b" } }, { token: mia.token }))).toBe("FORBIDDEN");
    expect(errorCode(await app.gql(DeleteCredentials, { deploymentId: ada.deploymentId, connector: "github" }, { token: mia.token }))).toBe("FORBIDDEN");
    expect(errorCode(await app.gql(Disconnect, { id: accounts[0].id }, { token: mia.token }))).toBe("FORBIDDEN");
  });
});

describe("a second deployment and the first one's sessions", () => {
  test("cannot see its accounts, nor complete its session with its own code", async () => {
    const eveUrl = await getAuthUrl(app, eve.apiKey, "github", "victim");
    const first = await walkConnectFlow(eveUrl, { stopAtProvider: true });
    const adaProd = await createOperator(app, "Mallory");
    const second = await walkConnectFlow(await getAuthUrl(app, adaProd.apiKey, "github", "victim"), { stopAtProvider: true });
    // Mallory approves at the provider for her own session...
    const authorize = await hop("GET", second.providerAuthorizeUrl!);
    const approved = await hop("POST", formIn(authorize).action, { ...formIn(authorize).fields, decision: "approve" });
    const malloryCallback = new URL(approved.location!);
    // ...and tries to land her code on Eve's session by swapping in Eve's state.
    const eveState = new URL(first.providerAuthorizeUrl!).searchParams.get("state")!;
    malloryCallback.searchParams.set("state", eveState);
    // Her browser holds no binding for Eve's attempt, so it is refused before any code is exchanged.
    const page = await hop("GET", malloryCallback.toString(), undefined, {}, second.jar);
    expect(page.status).toBe(403);
    expect((await connectedAccounts(app, eve)).some((a) => a.account === "victim")).toBe(false);
    expect((await connectedAccounts(app, adaProd)).some((a) => a.account === "victim")).toBe(false);
    // Mallory sees nothing of Eve's deployment, and Eve's own link still works for Eve's user.
    expect(errorCode(await app.gql(DeploymentConnectors, { id: eve.deploymentId, connector: "github" }, { token: adaProd.token }))).toBe("FORBIDDEN");
    expect((await walkConnectFlow(eveUrl)).final.status).toBe(200);
    expect((await connectedAccounts(app, eve)).filter((a) => a.account === "victim")).toHaveLength(1);
    expect((await connectedAccounts(app, adaProd)).some((a) => a.account === "victim")).toBe(false);
  });
});
