import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { type ConsoleStory, startConsoleStory } from "../helpers/consoleStory.ts";
import { SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { DeliveryStatsQuery } from "../helpers/operations.ts";
import type { Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, type TestApp } from "../helpers/testApp.ts";
import { screenshot, screenshotIfFailed } from "./browser.ts";

/**
 * Operating deliveries in a real browser: pause → events held → resume → delivered; retry-now of a
 * pending delivery after fixing the URL; filtering the Events page; the overview's charts and
 * tiles showing the numbers the API reports.
 */
let receiver: Receiver;
let story: ConsoleStory;
let app: TestApp;
let page: Page;
let ada: Operator;
/** The operator's endpoint at /flaky answers 500 until they fix it. */
let flakyFixed = false;

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.respond((request) =>
    request.path.startsWith("/flaky") && !flakyFixed ? { status: 500, body: '{"error":"database down"}' } : 200,
  );
  // A long retry schedule: a failing delivery stays PENDING, waiting, until someone acts.
  story = await startConsoleStory({ env: { DELIVERY_RETRY_SCHEDULE: "1h,1h" }, app: { worker: true }, viewport: { width: 1280, height: 900 }, timeoutMs: 15_000 });
  ({ app, operator: ada, page } = story);
}, 120_000);
afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page);
});
afterAll(async () => {
  await story?.close();
  await receiver?.close();
});

const button = (name: string | RegExp) => page.getByRole("button", { name });
const events = () => page.getByRole("table", { name: "Events" });
const rowOf = (eventId: string) => events().locator(`tr[data-event-id="${eventId}"]`);
const forwardTo = async (path: string) =>
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}${path}`, triggers: [{ connector: "github", trigger: "issue_opened" }] } }, { token: ada.token }));
const sendTest = async () =>
  ok(await app.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { apiKey: ada.apiKey })).sendTestEvent.id;

describe("operating deliveries in the console", () => {
  test("pause → events are held → resume → delivered", async () => {
    await forwardTo("/ok");
    await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/overview`);
    await page.getByTestId("live-state").or(page.getByRole("heading", { name: "Overview" })).first().waitFor();
    await button("Pause forwarding").click();
    const banner = page.getByTestId("forwarding-banner");
    await banner.getByText("Forwarding is paused").waitFor();

    const held = [await sendTest(), await sendTest()];
    await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/events`);
    await page.getByTestId("live-state").getByText("Live").waitFor();
    for (const id of held) await rowOf(id).getByText("held").waitFor();
    expect(held.every((id) => receiver.byEventId(id).length === 0)).toBe(true);

    await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/overview`);
    await page.getByTestId("forwarding-banner").waitFor();
    await button("Resume forwarding").click();
    await page.getByTestId("forwarding-banner").waitFor({ state: "detached" });
    await receiver.waitFor(() => held.every((id) => receiver.byEventId(id).length === 1));
    await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/events`);
    for (const id of held) await rowOf(id).getByText("Succeeded").waitFor();
  });

  test("retry-now of a pending delivery once the endpoint is fixed; the attempt log shows both answers", async () => {
    await forwardTo("/flaky");
    const eventId = await sendTest();
    await receiver.waitFor(() => receiver.byEventId(eventId).length === 1);
    await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/events`);
    const row = rowOf(eventId);
    await row.getByText("Pending").waitFor(); // next try in an hour
    await row.getByRole("button", { name: "Details" }).click();
    const attempts = page.getByRole("list", { name: "Attempts" });
    await attempts.getByText("HTTP 500").waitFor();
    await attempts.getByText('{"error":"database down"}').waitFor();
    await attempts.getByText("webhook-signature").first().waitFor({ state: "attached" });

    // The operator fixes their server and does not wait an hour.
    flakyFixed = true;
    await row.getByRole("button", { name: "Retry now" }).click();
    await receiver.waitFor(() => receiver.byEventId(eventId).length === 2);
    await row.getByText("Succeeded").waitFor();
    await attempts.getByText("HTTP 200").waitFor();
    await screenshot(page, "17-events-operations");
  });

  test("filtering the Events page by status, and loading more", async () => {
    // Nothing listens on port 9: what is sent there fails and waits (an hour) for its next try.
    ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: "http://127.0.0.1:9/down", triggers: [] } }, { token: ada.token }));
    const waiting = await sendTest();
    await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/events`);
    await page.getByTestId("live-state").getByText("Live").waitFor();
    // Filters fold away above the log (its first screen is events).
    await page.getByText("Filters", { exact: true }).click();
    const filters = page.getByRole("form", { name: "Filter events" });
    await filters.getByLabel("Status").selectOption("PENDING");
    await filters.getByRole("button", { name: "Apply filters" }).click();
    const statuses = () => events().locator("tr[data-event-id]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-status")));
    // The filtered page replaces the unfiltered one: poll until only the filtered rows are shown.
    await expect.poll(async () => { const s = await statuses(); return s.length > 0 && s.every((x) => x === "PENDING"); }, { timeout: 15_000 }).toBe(true);
    await rowOf(waiting).waitFor();

    await filters.getByLabel("Status").selectOption("SUCCEEDED");
    await filters.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(async () => { const s = await statuses(); return s.length > 0 && s.every((x) => x === "SUCCEEDED"); }, { timeout: 15_000 }).toBe(true);

    // 30 more events: the first page holds 25, "Load more" shows the rest, newest first throughout.
    for (let i = 0; i < 30; i++) await sendTest();
    await filters.getByRole("button", { name: "Clear" }).click();
    await expect.poll(() => events().locator("tr[data-event-id]").count(), { timeout: 15_000 }).toBe(25);
    await button("Load more").click();
    await expect.poll(() => events().locator("tr[data-event-id]").count(), { timeout: 15_000 }).toBeGreaterThan(30);
  });

  test("the overview's tiles and charts show the numbers deliveryStats reports", async () => {
    await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/overview`);
    const stats = ok(await app.gql(DeliveryStatsQuery, { id: ada.deploymentId }, { token: ada.token })).deployment!.deliveryStats;
    // The rate shown is over attempts (a delivery only fails after its retries run out).
    const rate = `${(stats.attemptSuccessRate! * 100).toFixed(1)} %`;
    await page.getByTestId("success-rate").getByText(rate).waitFor();
    await page.getByTestId("success-rate").getByText(`${stats.attemptsSucceeded} of ${stats.attempts} attempts answered 2xx`).waitFor();
    await page.getByTestId("deliveries").getByText(`${stats.succeeded} succeeded · ${stats.failed} failed`).waitFor();
    await page.getByTestId("queue-depth").getByText(String(stats.queueDepth), { exact: true }).waitFor();
    await page.getByTestId("latency").getByText(`${stats.p50Ms} / ${stats.p95Ms} ms`).waitFor();
    // The charts are drawn (uPlot canvases) and their legends carry the current hour's numbers.
    await expect.poll(() => page.locator(".chart canvas").count()).toBe(2);
    // The last two hours: a run that crossed the top of an hour has its successes in the one before.
    const recent = stats.buckets.slice(-2);
    const legend = await page.locator(".chart").first().locator(".u-legend").innerText();
    expect(legend).toContain("Succeeded");
    expect(legend).toContain("Failed");
    const drawn = await page.locator(".chart canvas").first().evaluate((canvas: HTMLCanvasElement) => {
      const pixels = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
      let colored = 0;
      for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 3] > 0 && pixels[i + 1] > pixels[i] + 40) colored++; // green-ish: succeeded bars
      return colored;
    });
    expect(recent.reduce((sum, bucket) => sum + bucket.attemptsSucceeded, 0)).toBeGreaterThan(0);
    expect(drawn).toBeGreaterThan(0);
    await screenshot(page, "16-overview");
  });
});
