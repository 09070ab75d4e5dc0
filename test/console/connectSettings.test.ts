import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { expectNoAxeViolations } from "../helpers/axe.ts";
import { type ConsoleStory, startConsoleStory } from "../helpers/consoleStory.ts";
import type { Operator } from "../helpers/operators.ts";
import { ok, type TestApp } from "../helpers/testApp.ts";
import { screenshotIfFailed } from "./browser.ts";

/**
 * Connect settings in the console, in Chromium: Ada lists her app's origins beside the API key; a
 * mistyped one is named under the list and nothing is saved; fixed, the list is saved normalised
 * and an auth-url may then send end users back there. Both states pass axe-core.
 */

const ReadConnectSettings = graphql(`
  query ConsoleTestConnectSettings($id: ID!) {
    deployment(id: $id) { id connectSettings { allowedRedirectOrigins proxyRateLimitPerMinute } }
  }
`);

let story: ConsoleStory;
let app: TestApp;
let ada: Operator;
let page: Page;

beforeAll(async () => {
  story = await startConsoleStory({ viewport: { width: 1280, height: 900 } });
  ({ app, operator: ada, page } = story);
}, 120_000);
afterAll(async () => {
  await story?.close();
});
afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page, "failed-connect-settings");
});

test("allowed redirect origins: a bad one is named and nothing is saved; the fixed list is saved normalised", async () => {
  await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/connect`);
  await page.getByRole("heading", { name: "Connect settings" }).waitFor();
  await expectNoAxeViolations(page, "Connect settings");

  const origins = page.getByLabel("Allowed redirect origins");
  await origins.fill("HTTPS://App.Example.com/\njavascript:alert(1)");
  await page.getByRole("button", { name: "Save Changes" }).click();
  await page.getByRole("alert").filter({ hasText: "javascript:" }).waitFor();
  expect(await origins.getAttribute("aria-invalid")).toBe("true");
  await expectNoAxeViolations(page, "Connect settings with an error");
  expect(ok(await app.gql(ReadConnectSettings, { id: ada.deploymentId }, { token: ada.token })).deployment?.connectSettings.allowedRedirectOrigins).toEqual([]);

  await origins.fill("HTTPS://App.Example.com/\nhttp://localhost:3000");
  await page.getByRole("button", { name: "Save Changes" }).click();
  await page.getByText("Connect settings saved.").waitFor();
  await expect.poll(() => origins.inputValue()).toBe("https://app.example.com\nhttp://localhost:3000");
  const saved = ok(await app.gql(ReadConnectSettings, { id: ada.deploymentId }, { token: ada.token }));
  expect(saved.deployment?.connectSettings.allowedRedirectOrigins).toEqual(["https://app.example.com", "http://localhost:3000"]);

  // The side menu lists it beside the API key.
  const menu = await page.getByRole("navigation", { name: "Deployment settings" }).getByRole("link").allTextContents();
  expect(menu.indexOf("Connect settings")).toBe(menu.indexOf("API Key") + 1);
});

test("the proxy rate limit per connection: a bad one is named under the field; saved; emptied, no limit", async () => {
  await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/connect`);
  const limit = page.getByLabel("Proxy requests per connection per minute");
  await limit.fill("0");
  await page.getByRole("button", { name: "Save Changes" }).click();
  await page.getByRole("alert").filter({ hasText: "proxyRateLimitPerMinute" }).waitFor();
  expect(await limit.getAttribute("aria-invalid")).toBe("true");
  await expectNoAxeViolations(page, "Connect settings with a bad rate limit");
  expect(ok(await app.gql(ReadConnectSettings, { id: ada.deploymentId }, { token: ada.token })).deployment?.connectSettings.proxyRateLimitPerMinute).toBeNull();

  await limit.fill("120");
  await page.getByRole("button", { name: "Save Changes" }).click();
  await page.getByText("Connect settings saved.").waitFor();
  await expect.poll(async () => ok(await app.gql(ReadConnectSettings, { id: ada.deploymentId }, { token: ada.token })).deployment?.connectSettings.proxyRateLimitPerMinute).toBe(120);
  await page.reload();
  await expect.poll(() => page.getByLabel("Proxy requests per connection per minute").inputValue()).toBe("120");

  await page.getByLabel("Proxy requests per connection per minute").fill("");
  await page.getByRole("button", { name: "Save Changes" }).click();
  await expect.poll(async () => ok(await app.gql(ReadConnectSettings, { id: ada.deploymentId }, { token: ada.token })).deployment?.connectSettings.proxyRateLimitPerMinute).toBeNull();
});
