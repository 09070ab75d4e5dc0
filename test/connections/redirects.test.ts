/**
 * The connect flow ends back in the operator's app. Ada allows her app's origin in Connect
 * settings, asks for an auth-url with a `redirectUrl`, and alice's browser lands on her page with
 * `status=connected` and the connection's id; a cancel, a refusal at the provider or an expired
 * link land there too with the error code. A redirect outside the allowed origins, or with a
 * script scheme, is refused when the link is made. Connection parameters (a Zendesk subdomain)
 * are validated, kept on the connection, and fill the provider's URLs for sign-in and refresh.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { graphql } from "../generated/gql.ts";
import { expectNoAxeViolations } from "../helpers/axe.ts";
import { connectedAccounts, getAuthUrl, hop, requestAuthUrl, walkConnectFlow } from "../helpers/connectFlow.ts";
import { type FakeDeclaredProvider, startDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const SaveConnectSettings = graphql(`
  mutation RedirectsSaveConnectSettings($deploymentId: ID!, $input: ConnectSettingsInput!) {
    saveConnectSettings(deploymentId: $deploymentId, input: $input) { allowedRedirectOrigins }
  }
`);
const ReadConnectSettings = graphql(`
  query RedirectsConnectSettings($id: ID!) {
    deployment(id: $id) { id connectSettings { allowedRedirectOrigins } }
  }
`);

let app: TestApp;
let github: FakeGitHub;
let zendesk: FakeDeclaredProvider;
let browser: Browser;
let ada: Operator;
let eve: Operator;
/** The operator's own app: records where browsers landed. */
let operatorApp: Server;
let appOrigin: string;
const landings: URL[] = [];

beforeAll(async () => {
  github = await startFakeGitHub({ user: { id: 4242, login: "alice-gh" } });
  zendesk = await startDeclaredProvider(findConnector("zendesk")!);
  app = await startTestApp({ ...github.env(), ...zendesk.env() });
  [ada, eve] = await Promise.all([createOperator(app, "Ada"), createOperator(app, "Eve")]);
  operatorApp = createServer((req, res) => {
    landings.push(new URL(req.url ?? "/", appOrigin));
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end('<!doctype html><html lang="en"><title>Ada\'s app</title><main><h1>Back in Ada\'s app</h1></main></html>');
  });
  await new Promise<void>((resolve) => operatorApp.listen(0, "127.0.0.1", resolve));
  appOrigin = `http://localhost:${(operatorApp.address() as AddressInfo).port}`;
  ok(await app.gql(SaveConnectSettings, { deploymentId: ada.deploymentId, input: { allowedRedirectOrigins: [appOrigin, "https://app.example.com"] } }, { token: ada.token }));
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run", "--disable-component-update", "--disable-sync"],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await Promise.all([github?.close(), zendesk?.close()]);
  await new Promise((resolve) => (operatorApp ? operatorApp.close(resolve) : resolve(undefined)));
});

const query = (location: string | null) => Object.fromEntries(new URL(location!).searchParams);

describe("the end user lands back in the operator's app", () => {
  test("in Chromium: auth-url with redirectUrl → Continue → consent → GitHub Approve → Ada's page with status=connected and the connection id", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "alice", { redirectUrl: `${appOrigin}/connected?from=switchyard#top` });
    const page = await browser.newPage();
    try {
      await page.goto(authUrl);
      await expectNoAxeViolations(page, "connect page");
      await page.getByRole("button", { name: "Continue" }).click();
      await page.waitForURL(/\/consent$/);
      await page.getByRole("button", { name: "Continue" }).click();
      await page.waitForURL((url) => url.toString().startsWith(github.authorizeUrl));
      await page.getByRole("button", { name: "Approve" }).click();
      await page.waitForURL((url) => url.origin === appOrigin);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Back in Ada's app");

      const landed = new URL(page.url());
      const [account] = (await connectedAccounts(app, ada)).filter((a) => a.connector === "github" && a.account === "alice");
      expect(landed.pathname).toBe("/connected");
      expect(Object.fromEntries(landed.searchParams)).toEqual({ from: "switchyard", status: "connected", connector: "github", account: "alice", connectionId: account.id });
      expect(landed.hash).toBe("#top");
      // The operator's server saw the same, and no connect link in a Referer.
      expect(landings.find((url) => url.pathname === "/connected")?.searchParams.get("connectionId")).toBe(account.id);
    } finally {
      await page.close();
    }
  });

  test("Cancel on the consent page ⇒ 303 back with status=error&error=access_denied; nothing stored", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "bob", { redirectUrl: `${appOrigin}/back` });
    const walk = await walkConnectFlow(authUrl, { consent: "cancel", stopAtProvider: true });
    // The walk takes any 303 after the consent page for the provider's; here it is Ada's app.
    expect(walk.final.status).toBe(303);
    expect(walk.final.location?.startsWith(`${appOrigin}/back?`)).toBe(true);
    expect(query(walk.final.location)).toEqual({ status: "error", connector: "github", account: "bob", error: "access_denied" });
    expect((await connectedAccounts(app, ada)).some((a) => a.account === "bob")).toBe(false);
  });

  test("refused at the provider ⇒ error=access_denied", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "carol", { redirectUrl: `${appOrigin}/back` });
    const walk = await walkConnectFlow(authUrl, { decision: "deny" });
    expect(walk.final.status).toBe(303);
    expect(query(walk.final.location)).toMatchObject({ status: "error", account: "carol", error: "access_denied" });
  });

  test("a callback from another browser ⇒ error=state_mismatch", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "dave", { redirectUrl: `${appOrigin}/back` });
    const started = await walkConnectFlow(authUrl, { stopAtProvider: true });
    const approve = await hop("GET", started.providerAuthorizeUrl!);
    expect(approve.status).toBe(200);
    const forged = await hop("GET", `${app.url}/oauth/callback?state=${new URL(started.providerAuthorizeUrl!).searchParams.get("state")}&code=x`);
    expect(forged.status).toBe(303);
    expect(query(forged.location)).toMatchObject({ status: "error", account: "dave", error: "state_mismatch" });
  });

  test("an expired link ⇒ 303 back with error=expired", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "erin", { redirectUrl: `${appOrigin}/back` });
    await app.database.prisma.connectSession.updateMany({ where: { account: "erin" }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const opened = await hop("GET", authUrl);
    expect(opened.status).toBe(303);
    expect(query(opened.location)).toEqual({ status: "error", connector: "github", account: "erin", error: "expired" });
  });

  test("without a redirectUrl the done page is shown as before", async () => {
    const walk = await walkConnectFlow(await getAuthUrl(app, ada.apiKey, "github", "frank"));
    expect(walk.final.status).toBe(200);
    expect(walk.final.body).toContain("Your GitHub account is connected");
  });

  test("an origin removed from Connect settings after the link was made is not redirected to", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "gina", { redirectUrl: "https://app.example.com/back" });
    ok(await app.gql(SaveConnectSettings, { deploymentId: ada.deploymentId, input: { allowedRedirectOrigins: [appOrigin] } }, { token: ada.token }));
    const walk = await walkConnectFlow(authUrl, { consent: "cancel" });
    expect(walk.final.status).toBe(200);
    expect(walk.final.body).toContain("Connection cancelled");
  });
});

describe("redirectUrl is checked when the link is made", () => {
  test("origins are normalised and de-duplicated", async () => {
    const saved = ok(
      await app.gql(
        SaveConnectSettings,
        { deploymentId: ada.deploymentId, input: { allowedRedirectOrigins: [appOrigin, "HTTPS://App.Example.com:443/", "https://app.example.com"] } },
        { token: ada.token },
      ),
    );
    expect(saved.saveConnectSettings.allowedRedirectOrigins).toEqual([appOrigin, "https://app.example.com"]);
    const read = ok(await app.gql(ReadConnectSettings, { id: ada.deploymentId }, { token: ada.token }));
    expect(read.deployment?.connectSettings.allowedRedirectOrigins).toEqual([appOrigin, "https://app.example.com"]);
  });

  const refused: Array<[string, string]> = [
    ["an origin not allowed", "https://evil.example.com/back"],
    ["a subdomain of an allowed origin", "https://evil.app.example.com/back"],
    ["http for an https origin", "http://app.example.com/back"],
    ["another port", "http://localhost:1/back"],
    ["javascript:", "javascript:alert(document.cookie)"],
    ["data:", "data:text/html,<script>alert(1)</script>"],
    ["userinfo", "https://app.example.com@evil.example.com/back"],
    ["a relative URL", "/back"],
    ["over 2,048 characters", `https://app.example.com/${"a".repeat(2048)}`],
  ];
  test.each(refused)("%s ⇒ 400 invalid_parameter naming redirectUrl", async (_label, redirectUrl) => {
    const response = await requestAuthUrl(app, ada.apiKey, "github", "alice", { redirectUrl });
    expect(response.status).toBe(400);
    const problem = await response.json();
    expect(problem.code).toBe("invalid_parameter");
    expect(problem.detail).toContain("redirectUrl");
  });

  test("an origin not allowed names the setting", async () => {
    const problem = await (await requestAuthUrl(app, ada.apiKey, "github", "alice", { redirectUrl: "https://evil.example.com/" })).json();
    expect(problem.detail).toContain("allowedRedirectOrigins");
    expect(problem.setting).toBe("allowedRedirectOrigins");
  });

  test("Connect settings refuse the same on GraphQL, with the same code (BAD_USER_INPUT is invalid_parameter)", async () => {
    for (const origin of ["javascript:alert(1)", "http://app.example.com", "https://app.example.com/path", "https://user@app.example.com", "ftp://files.example.com"]) {
      const result = await app.gql(SaveConnectSettings, { deploymentId: ada.deploymentId, input: { allowedRedirectOrigins: [origin] } }, { token: ada.token });
      expect(errorCode(result), origin).toBe("BAD_USER_INPUT");
    }
    const tooMany = Array.from({ length: 21 }, (_, i) => `https://app${i}.example.com`);
    expect(errorCode(await app.gql(SaveConnectSettings, { deploymentId: ada.deploymentId, input: { allowedRedirectOrigins: tooMany } }, { token: ada.token }))).toBe("BAD_USER_INPUT");
  });

  test("a stranger can neither read nor save another deployment's Connect settings", async () => {
    const read = await app.gql(ReadConnectSettings, { id: ada.deploymentId }, { token: eve.token });
    expect(read.data?.deployment ?? null).toBeNull();
    const saved = await app.gql(SaveConnectSettings, { deploymentId: ada.deploymentId, input: { allowedRedirectOrigins: ["https://eve.example.com"] } }, { token: eve.token });
    // The deployment-scoped operations' answer to someone outside it (as saveForwardingSettings).
    expect(errorCode(saved)).toBe("FORBIDDEN");
    // With her API key too: a key acts only in its own deployment.
    const byKey = await app.gql(SaveConnectSettings, { deploymentId: ada.deploymentId, input: { allowedRedirectOrigins: ["https://eve.example.com"] } }, { apiKey: eve.apiKey });
    expect(errorCode(byKey)).toBe("FORBIDDEN");
    const read2 = ok(await app.gql(ReadConnectSettings, { id: ada.deploymentId }, { token: ada.token }));
    expect(read2.deployment?.connectSettings.allowedRedirectOrigins).not.toContain("https://eve.example.com");
    // And Eve's own origins do not admit redirects for Ada's links.
    ok(await app.gql(SaveConnectSettings, { deploymentId: eve.deploymentId, input: { allowedRedirectOrigins: ["https://eve.example.com"] } }, { token: eve.token }));
    expect((await requestAuthUrl(app, ada.apiKey, "github", "alice", { redirectUrl: "https://eve.example.com/" })).status).toBe(400);
  });
});

describe("connection parameters", () => {
  const zendeskAuthUrl = (params: Record<string, string>, account = "agent") => requestAuthUrl(app, ada.apiKey, "zendesk", account, params);

  test.each([
    ["missing", {}, "params[subdomain]"],
    ["not a hostname label (a dot)", { "params[subdomain]": "evil.com" }, "params[subdomain]"],
    ["not a hostname label (a slash)", { "params[subdomain]": "acme/../x" }, "params[subdomain]"],
    ["upper case", { "params[subdomain]": "ACME" }, "params[subdomain]"],
    ["a leading hyphen", { "params[subdomain]": "-acme" }, "params[subdomain]"],
    ["an @", { "params[subdomain]": "x@evil" }, "params[subdomain]"],
    ["unknown", { "params[subdomain]": "acme", "params[region]": "eu" }, "params[region]"],
  ] as Array<[string, Record<string, string>, string]>)("%s ⇒ 400 invalid_parameter naming the parameter", async (_label, params, named) => {
    const response = await zendeskAuthUrl(params);
    expect(response.status).toBe(400);
    const problem = await response.json();
    expect(problem.code).toBe("invalid_parameter");
    expect(problem.detail).toContain(named);
  });

  test("a connector that declares none refuses params[…]", async () => {
    const response = await requestAuthUrl(app, ada.apiKey, "github", "alice", { "params[subdomain]": "acme" });
    expect(response.status).toBe(400);
    expect((await response.json()).detail).toContain("params[subdomain]");
  });

  test("a valid subdomain fills the provider's URLs for sign-in, identity and refresh, and is kept on the connection", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "zendesk", "agent", { "params[subdomain]": "acme", redirectUrl: `${appOrigin}/zendesk` });
    const walk = await walkConnectFlow(authUrl);
    // The fake answers only under the filled subdomain (its CONNECTOR_ZENDESK_* overrides keep {subdomain}).
    expect(new URL(walk.providerAuthorizeUrl!).pathname).toBe("/acme/oauth/authorizations/new");
    expect(zendesk.tokenRequests.at(-1)?.grantType).toBe("authorization_code");
    expect(zendesk.identityRequests.at(-1)).toMatchObject({ path: "/acme/api/api/v2/users/me", authorized: true });
    expect(walk.final.status).toBe(303);
    const landed = query(walk.final.location);
    expect(landed).toMatchObject({ status: "connected", connector: "zendesk", account: "agent" });

    const stored = await app.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id: landed.connectionId } });
    expect(stored.params).toEqual({ subdomain: "acme" });
    await app.database.prisma.connectedAccount.update({ where: { id: stored.id }, data: { tokenExpiresAt: new Date(Date.now() - 1000) } });
    await app.app.accessTokens.fresh(stored.id);
    expect(zendesk.tokenRequests.at(-1)?.grantType).toBe("refresh_token");
  });
});
