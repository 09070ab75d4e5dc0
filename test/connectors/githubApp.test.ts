/**
 * GitHub as a GitHub App (authMode APP_INSTALLATION), end to end against a fake GitHub that checks
 * the app's JWT with its public key: the end user installs the app, the installation is confirmed
 * before it is stored (a spoofed installation_id is refused), installation tokens are minted and
 * cached, the proxy calls GitHub as the installation, and the app's one webhook is verified with
 * GitHub's own signing code and routed by `installation.id`; uninstalling disconnects.
 */
import { sign } from "@octokit/webhooks-methods";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { connectAccount, connectedAccounts, getAuthUrl, hop, requestAuthUrl, walkConnectFlow } from "../helpers/connectFlow.ts";
import { startFakeGitHubApp, type FakeGitHubApp } from "../helpers/fakeProviders/githubApp.ts";
import { DeploymentEvents } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const SetAppCredentials = graphql(`
  mutation GitHubAppSetCredentials($d: ID!, $input: ConnectorCredentialsInput!) {
    setConnectorCredentials(deploymentId: $d, connector: "github_app", input: $input) { connector appId appSlug privateKeySet clientId clientSecretSet webhookSecretSet }
  }
`);

const WEBHOOK_SECRET = "app-webhook-secret";
let github: FakeGitHubApp;
let app: TestApp;
let ada: Operator;

beforeAll(async () => {
  github = await startFakeGitHubApp();
  app = await startTestApp(github.env({ CONNECTOR_GITHUB_APP_WEBHOOK_SECRET: WEBHOOK_SECRET }));
  github.setupUrl = `${app.url}/oauth/callback`;
  ada = await createOperator(app, "Ada");
}, 60_000);

afterAll(async () => {
  await app?.close();
  await github?.close();
});

const api = (path: string) => fetch(`${app.url}${path}`, { headers: { "x-api-key": ada.apiKey } });

describe("connecting an installation", () => {
  test("the end user installs the app; the connection is the installation's account, with a minted installation token", async () => {
    github.signedIn = { login: "octo-org", id: 9001 };
    const account = await connectAccount(app, ada, { connector: "github_app", account: "alice", provider: github });
    const installation = github.installations.at(-1)!;
    expect(account).toMatchObject({ connector: "github_app", externalId: String(installation.id), status: "ACTIVE", scopes: ["issues:write", "metadata:read"] });
    expect(github.jwtRefusals).toEqual([]);
    const connection = await (await api("/api/v1/connections/github_app/alice")).json();
    expect(connection).toMatchObject({ displayName: "octo-org", metadata: { login: "octo-org", accountId: 9001, accountType: "Organization" } });
  });

  test("a spoofed installation_id (someone else's existing installation) is refused and nothing is stored", async () => {
    const victim = { id: 777_000, account: { login: "victim-corp", id: 4242, type: "Organization" as const }, createdAt: new Date(Date.now() - 86_400_000), users: ["victim"] };
    github.installations.push(victim);
    const walk = await walkConnectFlow(await getAuthUrl(app, ada.apiKey, "github_app", "mallory"), { stopAtProvider: true });
    const state = new URL(walk.providerAuthorizeUrl!).searchParams.get("state")!;
    expect(new URL(walk.providerAuthorizeUrl!).pathname).toBe(`/apps/${github.slug}/installations/new`);
    const forged = await hop("GET", `${app.url}/oauth/callback?installation_id=${victim.id}&setup_action=install&state=${state}`, undefined, {}, walk.jar);
    expect(forged.status).toBe(403);
    expect(forged.body).toContain("could not be confirmed");
    expect((await connectedAccounts(app, ada)).some((a) => a.account === "mallory")).toBe(false);
  });

  test("with user authorization during installation, the installation must be one the installing user reaches", async () => {
    const bob = await createOperator(app, "Bob");
    const stored = ok(
      await app.gql(
        SetAppCredentials,
        { d: bob.deploymentId, input: { appId: github.appId, appSlug: github.slug, privateKey: github.privateKey, clientId: "Iv1.abc", clientSecret: "app-client-secret" } },
        { token: bob.token },
      ),
    );
    expect(stored.setConnectorCredentials).toMatchObject({ appId: github.appId, appSlug: github.slug, privateKeySet: true, clientSecretSet: true });
    expect(JSON.stringify(stored)).not.toContain("PRIVATE KEY");
    github.userAuthorization = true;
    try {
      github.signedIn = { login: "bobs-org", id: 5150 };
      // A forged id with a genuine code: the user's token does not reach that installation.
      const walk = await walkConnectFlow(await getAuthUrl(app, bob.apiKey, "github_app", "bob-forged"), { stopAtProvider: true });
      const install = await hop("GET", walk.providerAuthorizeUrl!);
      const callback = new URL(install.location!);
      callback.searchParams.set("installation_id", "777000");
      const forged = await hop("GET", callback.toString(), undefined, {}, walk.jar);
      expect(forged.status).toBe(403);

      const account = await connectAccount(app, bob, { connector: "github_app", account: "bob", provider: github });
      expect(account).toMatchObject({ externalId: String(github.installations.at(-1)!.id), status: "ACTIVE" });
      expect((await connectedAccounts(app, bob)).map((a) => a.account)).toEqual(["bob"]);
    } finally {
      github.userAuthorization = false;
    }
  });

  test("without the app configured, auth-url is 409 connector_not_configured naming the variables", async () => {
    const bare = await startTestApp({});
    try {
      const carol = await createOperator(bare, "Carol");
      const response = await requestAuthUrl(bare, carol.apiKey, "github_app", "carol");
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({
        code: "connector_not_configured",
        variables: ["CONNECTOR_GITHUB_APP_APP_ID", "CONNECTOR_GITHUB_APP_PRIVATE_KEY", "CONNECTOR_GITHUB_APP_SLUG"],
      });
    } finally {
      await bare.close();
    }
  }, 60_000);
});

describe("using an installation", () => {
  test("the token endpoint answers the cached installation token, and mints a new one once it expires within 5 minutes", async () => {
    const first = await (await api("/api/v1/connections/github_app/alice/token")).json();
    expect(first).toMatchObject({ tokenType: "Bearer", scopes: ["issues:write", "metadata:read"] });
    expect(first.accessToken).toMatch(/^ghs_/);
    expect(Date.parse(first.expiresAt)).toBeGreaterThan(Date.now() + 55 * 60_000);
    const again = await (await api("/api/v1/connections/github_app/alice/token")).json();
    expect(again.accessToken).toBe(first.accessToken);

    // GitHub shortens nothing, but a token with 4 minutes left is due: forced here with ?refresh=true
    // after a short-lived one is minted.
    github.tokenLifetimeMs = 4 * 60_000;
    const minted = github.minted.length;
    const renewed = await (await api("/api/v1/connections/github_app/alice/token?refresh=true")).json();
    expect(github.minted.length).toBe(minted + 1);
    expect(renewed.accessToken).not.toBe(first.accessToken);
    github.tokenLifetimeMs = 60 * 60_000;
    // 4 minutes left is within the 5-minute margin: the next read mints again.
    const next = await (await api("/api/v1/connections/github_app/alice/token")).json();
    expect(github.minted.length).toBe(minted + 2);
    expect(Date.parse(next.expiresAt)).toBeGreaterThan(Date.now() + 55 * 60_000);
    expect(github.jwtRefusals).toEqual([]);
  });

  test("the proxy calls GitHub as the installation", async () => {
    const response = await api("/api/v1/proxy/github_app/alice/installation/repositories");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ repositories: [{ full_name: "octo-org/Hello-World" }] });
  });
});

describe("the app's webhook", () => {
  const deliver = async (event: string, body: object, secret = WEBHOOK_SECRET) => {
    const raw = JSON.stringify(body);
    return fetch(`${app.url}/webhooks/${ada.deploymentId}/github_app`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": event, "x-github-delivery": crypto.randomUUID(), "x-hub-signature-256": await sign(secret, raw) },
      body: raw,
    });
  };
  const installationOf = async (account: string) => Number((await connectedAccounts(app, ada)).find((a) => a.account === account)!.externalId);
  const events = async () => ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 50 }, { token: ada.token })).deployment!.events;

  test("a signed issues.opened for the installation is recorded for its account; a wrong signature is refused", async () => {
    const installation = await installationOf("alice");
    const body = { action: "opened", issue: { id: 1, number: 7, title: "Bug", user: { id: 1, login: "x" } }, repository: { id: 1296269, owner: { id: 9001, login: "octo-org" } }, sender: { id: 1, login: "x" }, installation: { id: installation } };
    expect((await deliver("issues", body, "not-the-secret")).status).toBe(401);
    expect((await events()).filter((e) => e.connector === "github_app")).toEqual([]);
    expect((await deliver("issues", body)).status).toBe(200);
    const [event] = (await events()).filter((e) => e.connector === "github_app");
    expect(event).toMatchObject({ type: "github_app.issue_opened", account: "alice" });
  });

  test("installation.deleted disconnects the installation's connection and emits switchyard.connection_deleted", async () => {
    const installation = await installationOf("alice");
    const body = { action: "deleted", installation: { id: installation, account: { id: 9001, login: "octo-org" } }, sender: { id: 1, login: "x" } };
    expect((await deliver("installation", body)).status).toBe(200);
    const alice = (await connectedAccounts(app, ada)).find((a) => a.account === "alice")!;
    expect(alice.status).toBe("DISCONNECTED");
    const all = await events();
    expect(all.some((e) => e.type === "github_app.installation_deleted" && e.account === "alice")).toBe(true);
    expect(all.some((e) => e.type === "switchyard.connection_deleted" && e.account === "alice")).toBe(true);
    expect((await api("/api/v1/connections/github_app/alice/token")).status).toBe(409);
  });
});
