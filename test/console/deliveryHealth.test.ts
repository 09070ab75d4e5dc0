import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { expectNoAxeViolations } from "../helpers/axe.ts";
import { type ConsoleStory, startConsoleStory } from "../helpers/consoleStory.ts";
import { SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { DeliveryStatsQuery } from "../helpers/operations.ts";
import { createOperator, joinByInvitation, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { errorCode, ok, type TestApp } from "../helpers/testApp.ts";
import { screenshot, screenshotIfFailed } from "./browser.ts";

/**
 * Delivery health counts attempts. The operator's endpoint answers 500 to everything: every
 * delivery is still PENDING (retrying), so the old delivery-based rate had nothing to say (and
 * the console showed 100 % from earlier successes). deliveryStats now says 0 % over attempts and
 * flags the endpoint, and the console says so on Overview, on Trigger Forwarding, on Events and
 * in the navigation; a paused deployment says so on each of them too. Trying a connector needs
 * no API key from a logged-in owner (createTestAuthorizationUrl), and is refused to a member.
 */

const TestAuthorizationUrl = graphql(`
  mutation HealthTestAuthorizationUrl($deploymentId: ID!, $connector: String!, $account: String!) {
    createTestAuthorizationUrl(deploymentId: $deploymentId, connector: $connector, account: $account) { authUrl expiresAt }
  }
`);

const PauseForwarding = graphql(`
  mutation HealthPauseForwarding($deploymentId: ID!) { pauseForwarding(deploymentId: $deploymentId) { status } }
`);

let receiver: Receiver;
let story: ConsoleStory;
let app: TestApp;
let page: Page;
let ada: Operator;
const EVENTS = 3;

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.respond(() => ({ status: 500, body: '{"error":"database down"}' }));
  // Two quick attempts per delivery, then the next one an hour away: PENDING, failing, waiting.
  story = await startConsoleStory({ env: { DELIVERY_RETRY_SCHEDULE: "100ms,1h", CONNECTOR_GITHUB_CLIENT_ID: "service-client", CONNECTOR_GITHUB_CLIENT_SECRET: "service-secret" }, app: { worker: true }, viewport: { width: 1280, height: 800 }, timeoutMs: 15_000 });
  ({ app, operator: ada, page } = story);
  ok(await app.gql(SaveForwardingSettings, {
    deploymentId: ada.deploymentId,
    input: { forwardingUrl: `${receiver.url}/hook`, triggers: [{ connector: "github", trigger: "issue_opened" }] },
  }, { token: ada.token }));
  for (let i = 0; i < EVENTS; i++) {
    ok(await app.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { apiKey: ada.apiKey }));
  }
  await receiver.waitFor((requests) => requests.length >= EVENTS * 2, 30_000);
}, 120_000);
afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page, "health-failed");
});
afterAll(async () => {
  await story?.close();
  await receiver?.close();
});

// Two hours: the window starts at the top of an hour (the database's clock), and a run that crosses
// one keeps its first attempts in the previous hour's bucket, still in the window.
const stats = async () => ok(await app.gql(DeliveryStatsQuery, { id: ada.deploymentId, hours: 2 }, { token: ada.token })).deployment!.deliveryStats;

describe("delivery health against an endpoint that answers 500", () => {
  test("deliveryStats: 0 % of attempts succeeded, the endpoint is flagged with its last answer and the next retry", async () => {
    // Wait until the worker has recorded every second attempt (the receiver sees them first).
    await expect.poll(async () => (await stats()).attempts, { timeout: 15_000 }).toBe(EVENTS * 2);
    const health = await stats();
    expect(health).toMatchObject({ attempts: EVENTS * 2, attemptsSucceeded: 0, attemptsFailed: EVENTS * 2, attemptSuccessRate: 0 });
    // The deliveries themselves are still retrying: the delivery-based rate has no verdict yet.
    expect(health).toMatchObject({ succeeded: 0, failed: 0, pending: EVENTS, successRate: null });
    expect(health.failingEndpoint).toMatchObject({ url: `${receiver.url}/hook`, consecutiveFailures: EVENTS * 2, lastStatusCode: 500 });
    const nextIn = Date.parse(health.failingEndpoint!.nextAttemptAt!) - Date.now();
    // The schedule's 1 h step, ±10 % jitter (src/delivery/retryPolicy.ts): 54 to 66 minutes.
    expect(nextIn).toBeGreaterThan(50 * 60_000);
    expect(nextIn).toBeLessThanOrEqual(66 * 60_000);
    const lastTwoHours = health.buckets.slice(-2);
    expect(lastTwoHours.map((bucket) => bucket.attemptsSucceeded)).toEqual([0, 0]);
    expect(lastTwoHours.reduce((sum, bucket) => sum + bucket.attemptsFailed, 0)).toBe(EVENTS * 2);
  });

  test("Overview: 0.0 %, the failing endpoint in words, the navigation's badge", async () => {
    await page.goto(`${app.url}/console/deployments/${ada.deploymentId}`);
    // A deployment opens on its Overview.
    await page.waitForURL(/\/overview$/);
    await page.getByTestId("success-rate").getByText("0.0 %").waitFor();
    await page.getByTestId("success-rate").getByText(`0 of ${EVENTS * 2} attempts answered 2xx`).waitFor();
    const failing = page.getByTestId("failing-endpoint");
    await failing.getByText(new RegExp(`^Your endpoint answered 500 to the last ${EVENTS * 2} attempts, next retry in (1 hour|5\\d minutes|60 minutes)\\.$`)).waitFor();
    await page.getByTestId("nav-health").getByText("Endpoint failing").waitFor();
    await expect.poll(() => page.locator(".chart canvas").count()).toBe(2);
    await expectNoAxeViolations(page, "Overview with a failing endpoint");
    await screenshot(page, "18-overview-failing-endpoint");

    const phone = await story.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await phone.goto(`${app.url}/console/deployments/${ada.deploymentId}/overview`);
      await phone.getByTestId("failing-endpoint").waitFor();
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await expectNoAxeViolations(phone, "Overview with a failing endpoint at 390px");
    } finally {
      await phone.context().close();
    }
  });

  test("Trigger Forwarding and Events say the same; a failing row shows its attempts, answer and next attempt on one line", async () => {
    await page.getByRole("navigation", { name: "Deployment" }).getByRole("link", { name: "Settings", exact: true }).click();
    await page.getByRole("navigation", { name: "Deployment settings" }).getByRole("link", { name: "Trigger Forwarding" }).click();
    await page.getByTestId("failing-endpoint").getByText(/answered 500/).waitFor();
    await page.getByTestId("nav-health").waitFor();
    await expectNoAxeViolations(page, "Trigger Forwarding with a failing endpoint");

    await page.getByRole("navigation", { name: "Deployment" }).getByRole("link", { name: "Events", exact: true }).click();
    await page.getByTestId("failing-endpoint").waitFor();
    const rows = page.getByRole("table", { name: "Events" }).locator("tr[data-event-id]");
    await expect.poll(() => rows.count()).toBe(EVENTS);
    const first = rows.first();
    await first.getByText("Pending", { exact: true }).waitFor();
    expect(await first.locator(".delivery-note").textContent()).toMatch(/^ · 2 attempts · 500 · next in (1 hour|5\d minutes|60 minutes)$/);
    // One line per event: every row is as tall as one line of text (plus padding), the first at the top of the screen.
    const heights = await rows.evaluateAll((trs) => trs.map((tr) => tr.getBoundingClientRect().height));
    expect(Math.max(...heights)).toBeLessThan(60);
    expect((await rows.first().boundingBox())!.y + 60).toBeLessThan(800);
    await expectNoAxeViolations(page, "Events with failing deliveries");
    await screenshot(page, "19-events-failing-endpoint");
  });

  test("paused: the navigation, Overview, Trigger Forwarding and Events each say so", async () => {
    ok(await app.gql(PauseForwarding, { deploymentId: ada.deploymentId }, { token: ada.token }));
    for (const slug of ["overview", "forwarding", "events"]) {
      await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/${slug}`);
      await page.getByTestId("nav-health").getByText("Forwarding paused").waitFor();
      await page.getByTestId("forwarding-banner").getByText("Forwarding is paused").waitFor();
      // No retry is promised while nothing is sent.
      await page.getByTestId("failing-endpoint").getByText(/no retry while forwarding is stopped/).waitFor();
      await expectNoAxeViolations(page, `${slug} while paused`);
    }
  });
});

describe("trying a connector from a logged-in session", () => {
  test("createTestAuthorizationUrl: an owner gets a connect link without the API key; a member is refused; bad input is a 4xx code", async () => {
    const made = ok(await app.gql(TestAuthorizationUrl, { deploymentId: ada.deploymentId, connector: "github", account: "try-me" }, { token: ada.token })).createTestAuthorizationUrl;
    expect(made.authUrl.startsWith(`${app.url}/connect/`)).toBe(true);
    expect((await fetch(made.authUrl)).status).toBe(200);

    const bea = await createOperator(app, "Bea");
    await joinByInvitation(app.gql, ada.token, ada.organizationId, { email: bea.email, token: bea.token }, "MEMBER");
    expect(errorCode(await app.gql(TestAuthorizationUrl, { deploymentId: ada.deploymentId, connector: "github", account: "x" }, { token: bea.token }))).toBe("FORBIDDEN");
    expect(errorCode(await app.gql(TestAuthorizationUrl, { deploymentId: ada.deploymentId, connector: "nope", account: "x" }, { token: ada.token }))).toBe("NOT_FOUND");
    expect(errorCode(await app.gql(TestAuthorizationUrl, { deploymentId: ada.deploymentId, connector: "github", account: "" }, { token: ada.token }))).toBe("BAD_USER_INPUT");
  });
});
