import { generateKeyPairSync } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { expectNoAxeViolations } from "../helpers/axe.ts";
import { type ConsoleStory, startConsoleStory } from "../helpers/consoleStory.ts";
import type { Operator } from "../helpers/operators.ts";
import { ok, type TestApp } from "../helpers/testApp.ts";
import { screenshot, screenshotIfFailed } from "./browser.ts";

/**
 * The console's catalog at full size, in Chromium: one of GitHub's hundreds of triggers picked by
 * typing a few words, saved; the connector list filtered by search and category; and each
 * connector marked ready, using the deployment's own app, or not set up with the fix named.
 * (The service here has an OAuth app for GitHub only.)
 */

const ForwardingTriggers = graphql(`
  query ConsoleTestForwardingTriggers($id: ID!) {
    deployment(id: $id) { id forwardingSettings { triggers { connector trigger } } }
  }
`);

let github: FakeGitHub;
let story: ConsoleStory;
let app: TestApp;
let ada: Operator;
let page: Page | undefined;

beforeAll(async () => {
  github = await startFakeGitHub();
  story = await startConsoleStory({ env: github.env(), viewport: { width: 1280, height: 900 } });
  ({ app, operator: ada } = story);
});
afterAll(async () => {
  await story?.close();
  await github?.close();
});
afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page, "failed-catalog");
  await page?.context().close();
});

async function open(path: string): Promise<Page> {
  page = await story.newPage();
  await page.goto(`${app.url}/console${path}`);
  return page;
}

test("a GitHub trigger among hundreds is picked by typing, shown with its description, and saved", async () => {
  const page = await open(`/deployments/${ada.deploymentId}/forwarding`);
  await page.getByLabel("Forwarding URL").fill("https://example.com/hooks");

  // Browsing: GitHub offers hundreds of triggers; the category filter narrows the connectors.
  await page.getByLabel("Connector", { exact: true }).selectOption({ label: "GitHub" });
  const githubOptions = await page.getByLabel("Trigger", { exact: true }).locator("option").count();
  expect(githubOptions).toBeGreaterThan(250);
  await page.getByLabel("Category", { exact: true }).selectOption({ label: "chat" });
  const connectorOptions = await page.getByLabel("Connector", { exact: true }).locator("option").allTextContents();
  expect(connectorOptions).toContain("Slack");
  expect(connectorOptions).not.toContain("Jira");
  await page.getByLabel("Category", { exact: true }).selectOption({ label: "All categories" });

  // Searching: a few words find the trigger across the whole catalog.
  await page.getByLabel("Search triggers").fill("workflow run compl");
  const results = page.getByRole("list", { name: "Matching triggers" });
  // Each hit is its own Add button, named after the trigger it adds, with the provider's event and description.
  const hit = results.getByRole("button", { name: "Add GitHub · Workflow run completed", exact: true });
  await hit.waitFor();
  // GitHub and the GitHub App share their triggers: a few hits of each, out of hundreds.
  expect(await results.getByRole("listitem").count()).toBeLessThanOrEqual(6);
  const row = results.getByRole("listitem").filter({ has: page.getByRole("button", { name: "Add GitHub · Workflow run completed", exact: true }) });
  expect(await row.textContent()).toContain("workflow_run.completed");
  // By keyboard: the hit takes focus and Enter adds it; it stays where it was, now saying it is in the list.
  await hit.focus();
  await page.keyboard.press("Enter");
  const added = results.getByRole("button", { name: "In the list: GitHub · Workflow run completed" });
  expect(await added.evaluate((el) => el === document.activeElement)).toBe(true);
  expect(await added.getAttribute("aria-disabled")).toBe("true");
  await page.keyboard.press("Enter"); // pressing it again adds nothing twice
  await page.getByRole("list", { name: "Forwarding Trigger List" }).getByText("GitHub · Workflow run completed").waitFor();
  await screenshot(page, "catalog-01-trigger-search");
  await page.getByRole("button", { name: "Save Changes" }).click();
  await page.getByText("Forwarding settings saved.").waitFor(); // not /saved/i: "Unsaved changes" matches that

  const { deployment } = ok(await app.gql(ForwardingTriggers, { id: ada.deploymentId }, { token: ada.token }));
  expect(deployment?.forwardingSettings?.triggers).toEqual([{ connector: "github", trigger: "workflow_run_completed" }]);
});

test("the connector list is searchable and filterable, and says which connectors are ready and how to fix the others", async () => {
  const page = await open(`/deployments/${ada.deploymentId}/connectors`);
  const catalog = page.getByRole("list", { name: "Connector catalog" });
  const row = (name: string) => catalog.getByRole("button", { name: new RegExp(`^${name}`) });
  await row("GitHub issue tracker").waitFor();
  expect(await row("GitHub issue tracker").textContent()).toContain("Ready");
  expect(await row("Gmail").textContent()).toContain("Not set up");

  await row("Gmail").click();
  const fix = page.getByTestId("setup-fix-gmail");
  expect(await fix.textContent()).toContain("CONNECTOR_GMAIL_CLIENT_ID");
  expect(await fix.textContent()).toContain("CONNECTOR_GMAIL_CLIENT_SECRET");
  await screenshot(page, "catalog-02-not-set-up");

  // The deployment's own app makes it usable: the mark says whose app it is.
  await page.getByRole("button", { name: "Use your own client ID and secret" }).click();
  await page.getByLabel("Client ID").fill("ada-google-app");
  await page.getByLabel("Client secret").fill("ada-google-secret");
  await page.getByRole("button", { name: "Save credentials" }).click();
  await row("Gmail").getByText("Your OAuth app").waitFor();

  // Configured connectors first, the rest by name; "Only configured" keeps just those.
  const names = await catalog.locator("li strong").allTextContents();
  expect(names[0]).toBe("Gmail");
  const rest = names.slice(1);
  expect(rest).toEqual([...rest].sort((a, b) => a.localeCompare(b)));
  await page.getByLabel(/Only configured/).check();
  await expect.poll(() => catalog.locator("li strong").allTextContents()).toEqual(["Gmail"]);
  await expectNoAxeViolations(page, "the connector catalog, only configured");
  await page.getByLabel(/Only configured/).uncheck();

  await page.getByLabel("Search connectors").fill("jira");
  await row("Jira").waitFor();
  expect(await catalog.getByRole("listitem").count()).toBe(1);
  await page.getByLabel("Search connectors").fill("");
  await page.getByLabel("Category").selectOption({ index: 1 });
  const filtered = await catalog.getByRole("listitem").count();
  expect(filtered).toBeGreaterThan(0);
  expect(filtered).toBeLessThan(4);
  await screenshot(page, "catalog-03-filtered");
});

const AppCredentials = graphql(`
  query ConsoleTestAppCredentials($id: ID!) {
    deployment(id: $id) { id connectorCredentials { connector appId appSlug privateKeySet clientSecretSet } }
  }
`);

test("a GitHub App is set up with its id, slug and private key (names the variables while it is not), and the key is never shown again", async () => {
  const page = await open(`/deployments/${ada.deploymentId}/connectors`);
  await page.getByLabel("Search connectors").fill("github app");
  const row = page.getByRole("list", { name: "Connector catalog" }).getByRole("button", { name: /^GitHub App/ });
  expect(await row.textContent()).toContain("Not set up");
  await row.click();
  const fix = page.getByTestId("setup-fix-github_app");
  for (const variable of ["CONNECTOR_GITHUB_APP_APP_ID", "CONNECTOR_GITHUB_APP_SLUG", "CONNECTOR_GITHUB_APP_PRIVATE_KEY"]) expect(await fix.textContent()).toContain(variable);

  await page.getByRole("button", { name: "Use your own app" }).click();
  const form = page.getByRole("form", { name: "GitHub App app" });
  await expectNoAxeViolations(page, "the GitHub App credentials form");
  await form.getByLabel("App ID").fill("123456");
  await form.getByLabel("App slug").fill("acme-switchyard");
  // Something PEM-shaped that is not a key is refused on the form, nothing stored.
  await form.getByLabel("Private key").fill("-----BEGIN RSA PRIVATE KEY-----\nnot a key\n-----END RSA PRIVATE KEY-----\n");
  await form.getByRole("button", { name: "Save credentials" }).click();
  await form.getByText(/not a readable RSA private key/).waitFor();

  const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  await form.getByLabel("Private key").fill(pem);
  await form.getByRole("button", { name: "Save credentials" }).click();
  await row.getByText("Your app").waitFor();
  const details = page.getByText(/Your own app: id/);
  expect(await details.textContent()).toContain("acme-switchyard");
  expect(await page.content()).not.toContain(pem.split("\n")[1]);

  const { deployment } = ok(await app.gql(AppCredentials, { id: ada.deploymentId }, { token: ada.token }));
  expect(deployment?.connectorCredentials.find((c) => c.connector === "github_app")).toMatchObject({ appId: "123456", appSlug: "acme-switchyard", privateKeySet: true, clientSecretSet: false });
});

test("Notion's verification token, once Notion POSTs it, is shown to the owner to copy and confirm, and can be discarded", async () => {
  const page = await open(`/deployments/${ada.deploymentId}/connectors`);
  await page.getByLabel("Search connectors").fill("notion");
  await page.getByRole("list", { name: "Connector catalog" }).getByRole("button", { name: /^Notion/ }).click();
  const panel = page.getByTestId("verification-token-notion");
  await panel.getByText("No verification token received yet").waitFor();

  // What Notion sends when the subscription is created (https://developers.notion.com/reference/webhooks).
  const token = "secret_tMrlL1qK5vuQAh1b6cZGhFChZTSYJlce98V0pYn7yBl";
  const sent = await fetch(`${app.url}/webhooks/${ada.deploymentId}/notion`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ verification_token: token }),
  });
  expect(sent.status).toBe(200);
  await panel.getByRole("button", { name: "Check again" }).click();
  await panel.getByText(token, { exact: true }).waitFor();
  expect(await panel.textContent()).toContain("none is used until you confirm it");
  expect(await panel.textContent()).not.toContain("verified with this token");
  await panel.getByRole("button", { name: "Copy" }).waitFor();
  await screenshot(page, "catalog-04-notion-verification-token");

  await panel.getByRole("button", { name: /^Confirm the token received/ }).click();
  await page.getByText("The Notion verification token is confirmed.").waitFor();
  await panel.getByText("No webhook secret is configured for Notion, so its signed events are verified with this token.").waitFor();
  expect(await panel.getByRole("button", { name: /^Confirm the token received/ }).count()).toBe(0);

  await panel.getByRole("button", { name: "Discard all tokens" }).click();
  await page.getByText("The Notion verification tokens were discarded").waitFor();
  await panel.getByText("No verification token received yet").waitFor();
});
