import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { expectNoAxeViolations } from "../helpers/axe.ts";
import { connectedAccounts, getAuthUrl } from "../helpers/connectFlow.ts";
import { type FakeCredentialedProvider, startCredentialedProvider } from "../helpers/fakeProviders/credentialed.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { launchChromium, screenshotIfFailed } from "../console/browser.ts";
import { graphql } from "../generated/gql.ts";

/**
 * The API key form in Chromium, as an end user meets it: Continue, consent, the form (labels,
 * help, the link to where SendGrid shows keys), a wrong key said on the page, the right key
 * connecting and sending the browser back to the operator's app with status=connected. Every page
 * is checked with axe-core (WCAG 2.1 AA), the form with its errors too, and at phone width.
 */

const SaveConnectSettings = graphql(`
  mutation CredentialsFormConnectSettings($deploymentId: ID!, $input: ConnectSettingsInput!) {
    saveConnectSettings(deploymentId: $deploymentId, input: $input) { allowedRedirectOrigins }
  }
`);

const sendgrid = findConnector("sendgrid")!;
let app: TestApp;
let fake: FakeCredentialedProvider;
let browser: Browser;
let ada: Operator;
let page: Page;

beforeAll(async () => {
  fake = await startCredentialedProvider(sendgrid);
  app = await startTestApp(fake.env());
  ada = await createOperator(app, "Ada");
  ok(await app.gql(SaveConnectSettings, { deploymentId: ada.deploymentId, input: { allowedRedirectOrigins: ["https://app.example.com"] } }, { token: ada.token }));
  browser = await launchChromium();
}, 120_000);

afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page, "credentials-form-failed");
  await page?.context().close();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await fake?.close();
});

async function toForm(account: string, viewport = { width: 1280, height: 860 }, extras: Record<string, string> = {}): Promise<Page> {
  page = await (await browser.newContext({ viewport })).newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(await getAuthUrl(app, ada.apiKey, "sendgrid", account, extras));
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await page.waitForURL(/\/consent$/);
  await expectNoAxeViolations(page, "consent page (API key connector)");
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await page.waitForURL(/\/credentials$/);
  return page;
}

test("a wrong key is said on the page, with nothing stored; the right key connects and returns to the operator's app", async () => {
  const target = await toForm("alice", undefined, { redirectUrl: "https://app.example.com/back" });
  expect((await target.getByRole("heading", { level: 1 }).textContent())?.trim()).toBe("Enter your SendGrid credentials");
  const key = target.getByLabel("API key");
  expect(await key.getAttribute("type")).toBe("password");
  expect(await target.getByRole("link", { name: /Where to find these in SendGrid/ }).getAttribute("href")).toBe(sendgrid.declaration.credentials!.whereToFind);
  await expectNoAxeViolations(target, "credentials form");

  await target.getByRole("button", { name: "Connect" }).click();
  await target.waitForLoadState();
  expect(await target.getByRole("alert").textContent()).toMatch(/correct the field/);
  expect(await target.getByLabel("API key").getAttribute("aria-invalid")).toBe("true");
  await expectNoAxeViolations(target, "credentials form with a missing field");

  await target.getByLabel("API key").fill("SG.not-the-key.at-all");
  await target.getByRole("button", { name: "Connect" }).click();
  await target.waitForLoadState();
  expect((await target.getByRole("alert").textContent())?.trim()).toBe("The key was refused by SendGrid. Check it and try again.");
  // The refused key is not shown back.
  expect(await target.getByLabel("API key").inputValue()).toBe("");
  await expectNoAxeViolations(target, "credentials form, key refused");
  expect(await app.database.prisma.connectedAccount.count({ where: { connector: "sendgrid", account: "alice" } })).toBe(0);

  // The browser leaves for the operator's app (not served here): catch the navigation instead of following it.
  await target.route("https://app.example.com/**", (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>back</title>" }));
  await target.getByLabel("API key").fill(fake.fields.api_key);
  await target.getByRole("button", { name: "Connect" }).click();
  await target.waitForURL(/^https:\/\/app\.example\.com\/back/);
  const back = new URL(target.url());
  expect(back.searchParams.get("status")).toBe("connected");
  const account = (await connectedAccounts(app, ada)).find((a) => a.connector === "sendgrid" && a.account === "alice");
  expect(account).toMatchObject({ externalId: fake.identity.id, status: "ACTIVE" });
  expect(back.searchParams.get("connectionId")).toBe(account!.id);
});

test("the form and its done page at phone width", async () => {
  const target = await toForm("bob", { width: 375, height: 740 });
  await expectNoAxeViolations(target, "credentials form (phone)");
  await target.getByLabel("API key").fill(fake.fields.api_key);
  await target.getByRole("button", { name: "Connect" }).click();
  expect((await target.getByRole("heading", { level: 1 }).textContent())?.trim()).toBe("Your SendGrid account is connected");
  await expectNoAxeViolations(target, "done page (API key connector, phone)");
});
