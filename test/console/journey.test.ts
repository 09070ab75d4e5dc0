import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { buildConsole } from "../../scripts/build-console.ts";
import { graphql } from "../generated/gql.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { scaled } from "../helpers/timing.ts";
import { launchChromium, type Receiver, screenshot, screenshotIfFailed, startReceiver } from "./browser.ts";

/**
 * The seed's operator journey in a real browser, from an empty database: sign up → create an
 * organization → App Integration → a deployment → Settings (API key, Trigger Forwarding, signing
 * secret, connectors, connected accounts, events, data) → log out and in again.
 */

const SendTestEvent = graphql(`
  mutation ConsoleTestSendTestEvent($deploymentId: ID!, $trigger: TriggerRefInput!) {
    sendTestEvent(deploymentId: $deploymentId, trigger: $trigger) { id }
  }
`);

const CreateItem = graphql(`
  mutation ConsoleTestCreateItem($deploymentId: ID!, $name: String!, $description: String!) {
    createDataItem(deploymentId: $deploymentId, name: $name, description: $description) { id }
  }
`);

let app: TestApp;
let github: FakeGitHub;
let receiver: Receiver;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  await buildConsole({ quiet: true });
  github = await startFakeGitHub();
  receiver = await startReceiver();
  app = await startTestApp({ DELIVERY_RETRY_SCHEDULE: "100ms,200ms", ...github.env() }, { worker: true });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  // Fail with the locator in the message rather than at the test timeout.
  page.setDefaultTimeout(scaled(10_000));
});

afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await receiver?.close();
  await github?.close();
});

const heading = (name: string | RegExp) => page.getByRole("heading", { name });
const button = (name: string | RegExp) => page.getByRole("button", { name });
const sideNav = (name: string) => page.getByRole("navigation", { name: /^Deployment( settings)?$/ }).getByRole("link", { name, exact: true });

describe("the seed journey", () => {
  const email = "ada@example.com";
  const password = "correct horse battery";
  let apiKey = "";
  let deploymentId = "";

  test("a fresh install opens on creating the first account", async () => {
    await page.goto(`${app.url}/`);
    await heading("Welcome — create the first account").waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/signup");
    await screenshot(page, "01-first-run-sign-up");

    await page.getByLabel("Your name").fill("Ada Lovelace");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await button("Sign up").click();

    await heading("Select an organization").waitFor();
    await page.getByText("You are not in any organization yet").waitFor();
    await screenshot(page, "02-organizations-empty");
  });

  test("the session is an HttpOnly cookie; nothing is kept in localStorage", async () => {
    const cookie = (await context.cookies()).find((c) => c.name === "sy_session");
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe("Lax");
    expect(await page.evaluate(() => document.cookie)).not.toContain("sy_session");
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length)).toBe(0);
  });

  test("create an organization: it opens on App Integration with its two deployments", async () => {
    await page.getByLabel("Organization name").fill("Acme");
    await button("Create organization").click();
    await heading("Acme").waitFor();
    const deployments = page.getByRole("list", { name: "Deployments" });
    await deployments.getByText("development").waitFor();
    await deployments.getByText("production").waitFor();
    await screenshot(page, "03-app-integration");

    await page.getByRole("link", { name: "Members" }).click();
    const members = page.getByRole("table", { name: "Members" });
    await members.getByText("ada@example.com").waitFor();
    expect(await members.getByText("Owner").count()).toBe(1);
    await screenshot(page, "04-members");
    await page.getByRole("link", { name: "App Integration" }).click();
  });

  test("choose a deployment → Settings; generate the API key, shown once with a copy button", async () => {
    await page.getByRole("list", { name: "Deployments" }).getByRole("link", { name: /development/ }).click();
    // A deployment opens on its Overview; the API key is under Settings.
    await page.getByRole("heading", { level: 1, name: "development", exact: true }).waitFor();
    await page.getByRole("heading", { name: "Overview", exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/\/overview$/);
    await sideNav("Settings").click();
    await page.getByRole("heading", { name: "API Key", exact: true }).waitFor();
    deploymentId = new URL(page.url()).pathname.split("/")[3];
    // The id `switchyard listen --deployment` asks for is on the page, with its own copy button.
    expect(await page.getByLabel("Deployment ID").getByText(deploymentId, { exact: true }).isVisible()).toBe(true);
    expect(await button("Copy ID").isVisible()).toBe(true);
    await page.getByText("This deployment has no API key yet.").waitFor();

    await button("Generate API key").click();
    const shown = page.getByTestId("new-api-key");
    await shown.waitFor();
    apiKey = (await shown.textContent()) ?? "";
    expect(apiKey).toMatch(/^sy_[a-z0-9]+_[A-Za-z0-9_-]{32,}$/);
    await page.getByText("Copy your new API key now. It will not be shown again.").waitFor();
    expect(await button(/^Copy$/).isVisible()).toBe(true);
    await screenshot(page, "05-api-key");

    const data = await fetch(`${app.url}/api/data`, { headers: { "x-api-key": apiKey } });
    expect(data.status).toBe(200);
  });

  test("Trigger Forwarding: URL, header, a trigger from the list, Save Changes", async () => {
    await sideNav("Trigger Forwarding").click();
    await heading("Trigger Forwarding").waitFor();
    const save = button("Save Changes");
    expect(await save.isDisabled()).toBe(true);

    await page.getByLabel("Forwarding URL").fill(receiver.url);
    expect(await save.isEnabled()).toBe(true);
    await page.getByLabel("Forwarding Header Key (optional)").fill("X-Receiver-Token");
    await page.getByLabel("Forwarding Header Value (optional)").fill("s3cret-value");
    await page.getByLabel("Connector", { exact: true }).selectOption({ label: "GitHub" });
    await page.getByLabel("Trigger", { exact: true }).selectOption({ label: "Issue opened" });
    await button("Add GitHub · Issue opened").click();
    const list = page.getByRole("list", { name: "Forwarding Trigger List" });
    await list.getByText("GitHub · Issue opened").waitFor();
    await page.getByText("Unsaved changes").waitFor();
    await screenshot(page, "06-trigger-forwarding");

    await save.click();
    await page.getByText("Forwarding settings saved.").waitFor();
    await page.getByText("Unsaved changes").waitFor({ state: "detached" });
    expect(await save.isDisabled()).toBe(true);
    // The value is write-only: the page only knows that one is saved.
    expect(await page.getByLabel("Forwarding Header Value (optional)").inputValue()).toBe("");
    await page.getByText("A value is saved. It is stored encrypted and never shown.").waitFor();
    expect(await page.getByLabel("Forwarding URL").inputValue()).toBe(receiver.url);
  });

  test("Signing secret: masked, revealed on request", async () => {
    await sideNav("Signing secret").click();
    const secret = page.getByTestId("signing-secret");
    await secret.waitFor();
    expect(await secret.textContent()).toContain("•");
    await button("Reveal").click();
    expect(await secret.textContent()).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    await button("Hide").click();
    await screenshot(page, "07-signing-secret");
  });

  test("Connectors: the catalog, the webhook URL, and a test account connected end to end", async () => {
    await sideNav("Connectors").click();
    const catalog = page.getByRole("list", { name: "Connector catalog" });
    for (const name of ["GitHub", "Gmail", "Jira", "Slack"]) await catalog.getByText(name, { exact: true }).waitFor();
    await catalog.getByRole("button", { name: /^GitHub issue tracker/ }).click();
    expect(await page.getByTestId("webhook-url-github").textContent()).toBe(`${app.url}/webhooks/${deploymentId}/github`);
    await page.getByText("Using the Switchyard service's credentials.").waitFor();

    // A logged-in owner needs no API key to try a connector (createTestAuthorizationUrl).
    expect(await page.getByLabel("API key").count()).toBe(0);
    await page.getByLabel("Account").fill("alice");
    await button("Create authorization URL").click();
    const link = page.getByTestId("auth-url");
    await link.waitFor();
    const authUrl = (await link.getAttribute("href")) ?? "";
    expect(authUrl.startsWith(`${app.url}/connect/`)).toBe(true);
    await screenshot(page, "08-connectors");

    // The end user's side, in another tab: Continue → consent → the provider's Approve → done.
    const endUser = await context.newPage();
    await endUser.goto(authUrl);
    await endUser.getByRole("button", { name: "Continue" }).click();
    await endUser.getByRole("heading", { name: /Allow Acme to access your GitHub account/ }).waitFor();
    await endUser.getByRole("button", { name: "Continue" }).click();
    await endUser.getByRole("button", { name: "Approve" }).click();
    await endUser.getByRole("heading", { name: "Your GitHub account is connected" }).waitFor();
    await endUser.close();

    await sideNav("Connections").click();
    const accounts = page.getByRole("table", { name: "Connections" });
    await accounts.getByRole("cell", { name: "alice", exact: true }).waitFor();
    await accounts.getByText("Active").waitFor();
    await screenshot(page, "09-connected-accounts");
  });

  test("Events: a test event appears live, arrives at the receiver with the header, and can be replayed", async () => {
    await sideNav("Events").click();
    await page.getByTestId("live-state").getByText("Live").waitFor();
    const events = () => page.getByRole("table", { name: "Events" });

    await button("Send a test event…").click();
    await button("Send test event: GitHub · Issue opened").click();
    const first = events().locator("tr[data-event-id]").filter({ hasText: "github.issue_opened" }).first();
    await first.waitFor();
    const eventId = (await first.getAttribute("data-event-id"))!;
    const row = events().locator(`tr[data-event-id="${eventId}"]`);
    await row.getByText("Succeeded").waitFor();

    const delivered = await receiver.next((r) => r.headers["webhook-id"] === eventId);
    expect(delivered.headers["x-receiver-token"]).toBe("s3cret-value");
    expect(delivered.headers["webhook-signature"]).toMatch(/^v1,/);
    const body = JSON.parse(delivered.body);
    expect(body).toMatchObject({ id: eventId, type: "github.issue_opened", connector: "github", trigger: "issue_opened", account: "test", deploymentId });

    // Something that happens elsewhere (here: the API, with the deployment's key) shows up without a reload.
    const { sendTestEvent } = ok(await app.gql(SendTestEvent, { deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { apiKey }));
    const liveRow = events().locator(`tr[data-event-id="${sendTestEvent.id}"]`);
    await liveRow.waitFor();
    await liveRow.getByText("Succeeded").waitFor();

    // The event sent is shown: named above the log, its row marked and its details open.
    expect(await page.getByTestId("sent-test-event").textContent()).toContain(eventId);
    expect(await row.getAttribute("class")).toContain("highlight");
    // Attempt history (open since it was sent), then a replay with the same webhook-id.
    await row.getByRole("button", { name: "Hide" }).waitFor();
    const attempts = page.getByRole("list", { name: "Attempts" });
    await attempts.getByText("HTTP 200").waitFor();
    await screenshot(page, "10-events");
    const before = receiver.requests.filter((r) => r.headers["webhook-id"] === eventId).length;
    await row.getByRole("button", { name: "Replay" }).click();
    await receiver.next((r) => r.headers["webhook-id"] === eventId && receiver.requests.filter((x) => x.headers["webhook-id"] === eventId).length > before);
    await attempts.getByText("HTTP 200").nth(1).waitFor();
  });

  test("Data: paged with offset and limit; add, edit, delete", async () => {
    for (let i = 1; i <= 11; i++) {
      ok(await app.gql(CreateItem, { deploymentId, name: `Item ${i}`, description: `Number ${i}` }, { apiKey }));
    }
    await sideNav("Data").click();
    await page.getByText("1–10 of 11").waitFor();
    await button("Next ›").click();
    await page.getByText("11–11 of 11").waitFor();
    await button("‹ Previous").click();
    await page.getByText("1–10 of 11").waitFor();

    const form = page.getByRole("form", { name: "Add a data item" });
    await form.getByLabel("Name").fill("Widget");
    await form.getByLabel("Description").fill("A fine widget");
    await form.getByRole("button", { name: "Add item" }).click();
    await page.getByText('Added "Widget".').waitFor();
    await page.getByText("1–10 of 12").waitFor();
    await screenshot(page, "11-data");

    const table = page.getByRole("table", { name: "Data items" });
    await table.getByRole("button", { name: "Edit Item 1", exact: true }).click();
    const name = table.getByRole("textbox", { name: "Name" });
    await name.fill("Item one");
    await name.press("Enter");
    await table.getByText("Item one").waitFor();

    await table.getByRole("button", { name: "Delete Item one" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await page.getByText('Deleted "Item one".').waitFor();
    await page.getByText("1–10 of 11").waitFor();
  });

  test("log out, then log in again where you were going", async () => {
    await button("Log out").click();
    await heading("Log in to the console").waitFor();
    await screenshot(page, "12-log-in");
    await page.goto(`${app.url}/console/deployments/${deploymentId}/forwarding`);
    await heading("Log in to the console").waitFor();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("wrong password");
    await button("Log in").click();
    await page.getByText("Email or password is incorrect.").waitFor();
    await page.getByLabel("Password").fill(password);
    await button("Log in").click();
    await heading("Trigger Forwarding").waitFor();
    expect(await page.getByLabel("Forwarding URL").inputValue()).toBe(receiver.url);
  });
});
