import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { expectNoAxeViolations } from "../helpers/axe.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type ConsoleStory, startConsoleStory } from "../helpers/consoleStory.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import type { Operator } from "../helpers/operators.ts";
import type { TestApp } from "../helpers/testApp.ts";
import { screenshot, screenshotIfFailed } from "./browser.ts";

/**
 * The Connections page as an operator uses it: search and status narrow the list, a connection's
 * details show its recent events, one needing re-authorization offers a new authorization URL to
 * copy, and Disconnect asks first.
 */

let github: FakeGitHub;
let story: ConsoleStory;
let app: TestApp;
let page: Page;
let ada: Operator;

beforeAll(async () => {
  github = await startFakeGitHub();
  story = await startConsoleStory({ env: github.env() });
  ({ app, operator: ada, page } = story);
  github.setIdentity({ id: 1001, login: "alice-gh" });
  await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
  github.setIdentity({ id: 1002, login: "bob-gh" });
  await connectAccount(app, ada, { connector: "github", account: "bob", provider: github });
  // Bob's provider refused a refresh.
  await app.database.prisma.connectedAccount.updateMany({ where: { deploymentId: ada.deploymentId, account: "bob" }, data: { status: "REAUTH_REQUIRED" } });
}, 120_000);
afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page, "connections-failed");
});
afterAll(async () => {
  await story?.close();
  await github?.close();
});

test("search, status, details with recent events, a new authorization URL, Disconnect with confirmation", async () => {
  await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/accounts`);
  const table = page.getByRole("table", { name: "Connections" });
  await table.getByText("alice-gh").waitFor();
  await table.getByText("bob-gh").waitFor();
  await expectNoAxeViolations(page, "Connections");

  await page.getByLabel("Search connections").fill("ALICE");
  await expect.poll(() => table.getByRole("row").count()).toBe(2); // header + alice
  await page.getByLabel("Search connections").fill("");
  await page.getByLabel("Status").selectOption("REAUTH_REQUIRED");
  await expect.poll(() => table.getByRole("row").count()).toBe(2);
  await table.getByText("Needs re-authorization").waitFor();

  await table.getByRole("button", { name: "Details of bob" }).click();
  await page.getByRole("list", { name: "Recent events of bob" }).getByText("switchyard.connection_created").waitFor();
  // Styled details: its id, status and token expiry as facts, no raw JSON dump.
  const details = page.getByRole("region", { name: "Details of bob" });
  const bob = await app.database.prisma.connectedAccount.findFirstOrThrow({ where: { deploymentId: ada.deploymentId, account: "bob" } });
  await details.getByText(bob.id, { exact: true }).waitFor();
  await details.getByText("Token expires").waitFor();
  expect(await details.locator("dd").allTextContents()).not.toContainEqual(expect.stringMatching(/^\{/));
  await page.getByRole("button", { name: "Create a new authorization URL" }).click();
  const url = page.getByRole("region", { name: "Details of bob" }).locator("code", { hasText: "/connect/" });
  await url.waitFor();
  expect(await url.textContent()).toMatch(new RegExp(`^${app.url}/connect/[A-Za-z0-9_-]+$`));
  await page.getByRole("button", { name: "Copy authorization URL" }).waitFor();
  await expectNoAxeViolations(page, "Connections (details open, new authorization URL)");
  await screenshot(page, "20-connection-details");

  // A recent event links to the Events page, opened on that event.
  const recent = page.getByRole("list", { name: "Recent events of bob" }).getByRole("listitem").first();
  const eventLink = recent.getByRole("link", { name: "Open in Events" });
  const href = (await eventLink.getAttribute("href"))!;
  await eventLink.click();
  await page.waitForURL(/\/events\?event=/);
  const eventId = decodeURIComponent(href.split("event=")[1]);
  await page.getByRole("table", { name: "Events" }).locator(`tr[data-event-id="${eventId}"]`).waitFor();
  await expect.poll(() => page.getByRole("table", { name: "Events" }).locator("tr[data-event-id]").count()).toBe(1);
  await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/accounts`);
  await page.getByLabel("Status").selectOption("REAUTH_REQUIRED");
  // Filtered to bob before his row's Disconnect is looked for: the page's first answer lists alice too
  // (a CI run under load 11 found two Disconnect buttons).
  await expect.poll(() => table.getByRole("row").count()).toBe(2);
  await table.getByRole("button", { name: "Details of bob" }).click();

  await table.getByRole("button", { name: "Disconnect" }).click();
  const dialog = page.getByRole("dialog", { name: "Disconnect this connection?" });
  // GitHub documents how to revoke the grant: the dialog says it will be, and it is.
  await dialog.getByText("Switchyard forgets bob's GitHub credentials, revokes the grant at GitHub").waitFor();
  await expectNoAxeViolations(page, "Connections (disconnect dialog)");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "hidden" });
  await table.getByRole("button", { name: "Disconnect" }).click();
  await dialog.getByRole("button", { name: "Disconnect" }).click();
  await page.getByRole("status").filter({ hasText: "Disconnected bob from github." }).waitFor();
  await page.getByLabel("Status").selectOption("DISCONNECTED");
  await table.getByRole("cell", { name: "Disconnected" }).waitFor();
  const row = await app.database.prisma.connectedAccount.findFirstOrThrow({ where: { deploymentId: ada.deploymentId, account: "bob" } });
  expect(row).toMatchObject({ status: "DISCONNECTED", accessTokenEncrypted: "" });
  expect(github.revocations).toHaveLength(1);
});

test("a connection whose polls are failing says so in its details", async () => {
  // GitHub stars are polled once listed; alice's last three polls failed (the poller's own story is test/polling/health.test.ts).
  await app.database.prisma.forwardingTrigger.create({ data: { deploymentId: ada.deploymentId, connector: "github", trigger: "repository_starred" } });
  await app.database.prisma.connectedAccount.updateMany({
    where: { deploymentId: ada.deploymentId, account: "alice" },
    data: { lastPolledAt: new Date(), lastPollError: "GET /user/starred answered HTTP 503", pollFailures: 3, pollFailingSince: new Date() },
  });
  await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/accounts`);
  const table = page.getByRole("table", { name: "Connections" });
  await table.getByRole("button", { name: "Details of alice" }).click();
  const status = page.getByRole("region", { name: "Details of alice" }).getByRole("status");
  await status.filter({ hasText: "Polling failing: 3 polls in a row" }).waitFor();
  expect(await status.textContent()).toContain("GET /user/starred answered HTTP 503");
});

// Where no revocation can be made, the dialog says what the end user does at the provider instead.
test.each([
  // An Airtable personal access token: typed by the end user, nothing Switchyard can revoke at Airtable.
  { connector: "airtable_pat", account: "carol", says: "The credentials stay valid at Airtable (personal access token): the end user can revoke them there." },
  // A GitHub App installation: removing it is the end user's (or their organization's) to do.
  { connector: "github_app", account: "dave", says: "The app stays installed: the end user can uninstall it in their GitHub App settings." },
  // LinkedIn documents no revocation request for an app's grant.
  { connector: "linkedin", account: "erin", says: "LinkedIn offers no way to revoke the grant from here: the end user can remove the app in their LinkedIn settings." },
])("Disconnect on a $connector connection says what the end user does there", async ({ connector, account, says }) => {
  await app.database.prisma.connectedAccount.create({
    data: { deploymentId: ada.deploymentId, connector, account, externalId: `ext-${account}`, accessTokenEncrypted: app.app.box.seal(`token-${account}`), scopes: [] },
  });
  await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/accounts`);
  await page.getByLabel("Search connections").fill(account);
  const table = page.getByRole("table", { name: "Connections" });
  await expect.poll(() => table.getByRole("row").count()).toBe(2);
  await table.getByRole("button", { name: "Disconnect" }).click();
  const dialog = page.getByRole("dialog", { name: "Disconnect this connection?" });
  await dialog.getByText(says).waitFor();
  expect(await dialog.textContent()).not.toContain("revokes the grant");
  await dialog.getByRole("button", { name: "Cancel" }).click();
});
