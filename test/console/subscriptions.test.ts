import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { buildConsole } from "../../scripts/build-console.ts";
import { expectNoAxeViolations } from "../helpers/axe.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeMicrosoftGraph, startFakeMicrosoftGraph } from "../helpers/fakeProviders/microsoftGraph.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, joinByInvitation, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions } from "../subscriptions/helpers.ts";
import { launchChromium, screenshotIfFailed } from "./browser.ts";

/**
 * A connection's provider subscriptions in the console: an Outlook connection whose Graph
 * subscription cannot be made (the fake Graph answers 500) shows it Failed with the error; Retry
 * now makes it due at once, and once Graph answers again the next pass makes it and the detail
 * shows it Active. /metrics counts it by status and the create by outcome.
 *
 * The app's clock starts 25 hours back so that the retries' back-off reaches FAILED (24 h of
 * failures) by moving the clock, and ends near the browser's real now.
 */
const clock = fakeClock(new Date(Date.now() - 25 * 60 * 60_000));
let graph: FakeMicrosoftGraph;
let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let ada: Operator;
let accountId: string;

beforeAll(async () => {
  await buildConsole({ quiet: true });
  graph = await startFakeMicrosoftGraph({ clock });
  app = await startTestApp(graph.env(), { clock });
  ada = await createOperator(app, "Ada");
  ok(
    await app.gql(
      SaveForwardingSettings,
      { deploymentId: ada.deploymentId, input: { forwardingUrl: "https://receiver.example.com/hook", triggers: [{ connector: "microsoft", trigger: "message_received" }] } },
      { token: ada.token },
    ),
  );
  accountId = (await connectAccount(app, ada, { connector: "microsoft", account: "alice", provider: graph })).id;
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addCookies([{ name: "sy_session", value: ada.token, url: app.url, httpOnly: true, sameSite: "Lax" }]);
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
}, 180_000);
afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page, "subscriptions-failed");
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.close();
  await graph?.close();
});

test("a failing subscription shows Failed with its error; Retry now makes it due, and it turns Active when the provider recovers", async () => {
  graph.failWith(500);
  await app.app.subscriptions.runOnce(true);
  let [sub] = await accountSubscriptions(app, ada, accountId);
  expect(sub).toMatchObject({ status: "PENDING", lastError: expect.stringMatching(/HTTP 500/) });
  // The back-off's attempts, each at its time, until 24 h of failures make it FAILED.
  for (let attempt = 0; attempt < 60 && sub.status !== "FAILED"; attempt++) {
    clock.set(new Date(Date.parse(sub.nextAttemptAt!)));
    await app.app.subscriptions.runOnce(true);
    [sub] = await accountSubscriptions(app, ada, accountId);
  }
  expect(sub.status).toBe("FAILED");
  expect(Date.parse(sub.nextAttemptAt!)).toBeGreaterThan(clock.now().getTime());

  await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/accounts`);
  const table = page.getByRole("table", { name: "Connections" });
  await table.getByRole("button", { name: "Details of alice" }).click();
  const subscriptions = page.getByRole("table", { name: "Subscriptions" });
  const row = subscriptions.getByRole("row").nth(1);
  await row.getByText("Failed", { exact: true }).waitFor();
  await row.getByText(/HTTP 500/).first().waitFor();
  await row.getByRole("cell", { name: "me/mailFolders('Inbox')/messages", exact: true }).waitFor();
  await row.getByRole("cell", { name: "created", exact: true }).waitFor();
  // Times both ways: relative, with the date beside it, in a machine-readable <time>.
  expect(await row.locator("time").first().getAttribute("datetime")).toBe(sub.nextAttemptAt);
  await expectNoAxeViolations(page, "Connections (subscriptions)");

  graph.failWith(0);
  await row.getByRole("button", { name: "Retry now the me/mailFolders('Inbox')/messages subscription" }).click();
  await page.getByRole("status").filter({ hasText: "Retrying the me/mailFolders('Inbox')/messages subscription of alice now." }).waitFor();
  [sub] = await accountSubscriptions(app, ada, accountId);
  expect(Date.parse(sub.nextAttemptAt!)).toBeLessThanOrEqual(clock.now().getTime());

  await app.app.subscriptions.runOnce(true);
  expect(graph.live()).toHaveLength(1);
  // The detail reads a subscription that is not settled again by itself.
  await row.getByText("Active", { exact: true }).waitFor();
  expect(await row.textContent()).not.toMatch(/HTTP 500/);
  await expectNoAxeViolations(page, "Connections (subscription active)");

  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  expect(metrics).toMatch(/switchyard_provider_subscriptions\{connector="microsoft",status="ACTIVE"\} 1/);
  expect(metrics).toMatch(/switchyard_subscription_operations_total\{connector="microsoft",operation="create",outcome="success"\} 1/);
  expect(metrics).toMatch(/switchyard_subscription_operations_total\{connector="microsoft",operation="create",outcome="failure"\} \d+/);
}, 120_000);

test("a member who is not an owner or admin sees the subscriptions but no Retry now", async () => {
  const mo = await createOperator(app, "Mo");
  await joinByInvitation(app.gql, ada.token, ada.organizationId, mo);
  const memberContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    await memberContext.addCookies([{ name: "sy_session", value: mo.token, url: app.url, httpOnly: true, sameSite: "Lax" }]);
    const memberPage = await memberContext.newPage();
    memberPage.setDefaultTimeout(15_000);
    await memberPage.goto(`${app.url}/console/deployments/${ada.deploymentId}/accounts`);
    await memberPage.getByRole("table", { name: "Connections" }).getByRole("button", { name: "Details of alice" }).click();
    const row = memberPage.getByRole("table", { name: "Subscriptions" }).getByRole("row").nth(1);
    await row.getByText("Active", { exact: true }).waitFor();
    expect(await row.getByRole("button").count()).toBe(0);
  } finally {
    await memberContext.close();
  }
}, 60_000);
