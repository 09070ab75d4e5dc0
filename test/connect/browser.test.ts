import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { connectedAccounts, getAuthUrl } from "../helpers/connectFlow.ts";
import { startFakeGitHub, type FakeGitHub } from "../helpers/fakeProviders/index.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const SetCredentials = graphql(`
  mutation BrowserSetCredentials($deploymentId: ID!, $connector: String!, $input: ConnectorCredentialsInput!) {
    setConnectorCredentials(deploymentId: $deploymentId, connector: $connector, input: $input) { connector clientSecretSet }
  }
`);

let app: TestApp;
let github: FakeGitHub;
let browser: Browser;
let ada: Operator;

beforeAll(async () => {
  github = await startFakeGitHub({ user: { id: 4242, login: "alice-gh" } });
  github.registerClient("ada-own-app", "ada-own-secret");
  app = await startTestApp(github.env());
  ada = await createOperator(app, "Ada");
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run", "--disable-component-update", "--disable-sync"],
  });
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await github?.close();
});

describe("a person clicks through the connect flow in Chromium", () => {
  test("with the service's default app: Continue → consent → GitHub Approve → done; the account shows in GraphQL", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "alice");
    const page = await browser.newPage();
    try {
      await page.goto(authUrl);
      await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Connect your GitHub account");
      expect(await page.locator("dd").allTextContents()).toEqual(["GitHub", "alice", "Ada's org"]);

      await page.getByRole("button", { name: "Continue" }).click();
      await page.waitForURL(/\/consent$/);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Allow Ada's org to access your GitHub account?");
      expect(await page.getByRole("listitem").allTextContents()).toEqual(["Read your GitHub profile (your user id, login and name)"]);
      expect(await page.getByRole("button", { name: "Cancel" }).isVisible()).toBe(true);

      await page.getByRole("button", { name: "Continue" }).click();
      await page.waitForURL((url) => url.toString().startsWith(github.authorizeUrl));
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain("GitHub");

      await page.getByRole("button", { name: "Approve" }).click();
      await page.waitForURL((url) => url.pathname === "/oauth/callback");
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Your GitHub account is connected");
      expect(await page.textContent("main")).toContain("alice-gh");
    } finally {
      await page.close();
    }
    const account = (await connectedAccounts(app, ada)).find((a) => a.account === "alice");
    expect(account).toMatchObject({ connector: "github", externalId: "4242", status: "ACTIVE", scopes: ["read:user"] });
  });

  test("with the operator's own app: Continue goes straight to GitHub (no consent page)", async () => {
    ok(await app.gql(SetCredentials, { deploymentId: ada.deploymentId, connector: "github", input: { clientId: "ada-own-app", clientSecret: "ada-own-secret" } }, { token: ada.token }));
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "bob");
    const page = await browser.newPage();
    const visited: string[] = [];
    page.on("framenavigated", (frame) => {
      if (frame === page.mainFrame()) visited.push(new URL(frame.url()).pathname);
    });
    try {
      await page.goto(authUrl);
      await page.getByRole("button", { name: "Continue" }).click();
      await page.waitForURL((url) => url.toString().startsWith(github.authorizeUrl));
      expect(new URL(page.url()).searchParams.get("client_id")).toBe("ada-own-app");
      await page.getByRole("button", { name: "Approve" }).click();
      await page.waitForURL((url) => url.pathname === "/oauth/callback");
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Your GitHub account is connected");
    } finally {
      await page.close();
    }
    expect(visited.some((path) => path.endsWith("/consent"))).toBe(false);
    expect((await connectedAccounts(app, ada)).find((a) => a.account === "bob")).toMatchObject({ status: "ACTIVE", externalId: "4242" });
  });

  test("the provider URL handed to another browser does not complete the connection; the browser that pressed Continue does", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "handed");
    const starter = await browser.newContext();
    const victim = await browser.newContext();
    try {
      const page = await starter.newPage();
      await page.goto(authUrl);
      await page.getByRole("button", { name: "Continue" }).click();
      await page.waitForURL((url) => url.toString().startsWith(github.authorizeUrl));
      const cookies = await starter.cookies(`${app.url}/oauth/callback`);
      expect(cookies).toEqual([expect.objectContaining({ path: "/oauth/callback", httpOnly: true, sameSite: "Lax" })]);

      // Someone hands the provider's URL to another person, whose browser never saw our pages.
      const other = await victim.newPage();
      await other.goto(page.url());
      await other.getByRole("button", { name: "Approve" }).click();
      await other.waitForURL((url) => url.pathname === "/oauth/callback");
      expect(await other.getByRole("heading", { level: 1 }).textContent()).toBe("This sign-in was started in another browser");
      expect(await other.textContent("main")).toContain("Start again from the authorization link");
      expect((await connectedAccounts(app, ada)).some((a) => a.account === "handed")).toBe(false);

      await page.getByRole("button", { name: "Approve" }).click();
      await page.waitForURL((url) => url.pathname === "/oauth/callback");
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Your GitHub account is connected");
      expect(await starter.cookies(`${app.url}/oauth/callback`)).toEqual([]);
    } finally {
      await starter.close();
      await victim.close();
    }
    expect((await connectedAccounts(app, ada)).filter((a) => a.account === "handed")).toHaveLength(1);
  });

  test("the pages are usable from the keyboard: Continue is reachable with Tab and shows focus", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "keyboard");
    const page = await browser.newPage();
    try {
      await page.goto(authUrl);
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Continue");
      const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
      expect(outline).toBe("solid");
      expect(await page.getAttribute("html", "lang")).toBe("en");
    } finally {
      await page.close();
    }
  });
});
