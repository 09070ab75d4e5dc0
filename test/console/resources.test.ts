import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { expectNoAxeViolations } from "../helpers/axe.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeDeclaredProvider, startDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { type ConsoleStory, startConsoleStory } from "../helpers/consoleStory.ts";
import type { Operator } from "../helpers/operators.ts";
import type { TestApp } from "../helpers/testApp.ts";
import { fakeHooks, hookRoutes } from "../subscriptions/fakeHooks.ts";
import { listTriggers } from "../subscriptions/helpers.ts";
import { screenshotIfFailed } from "./browser.ts";

/**
 * A connection's watched resources in the console: a GitLab connection made without a project says
 * it watches nothing; the operator names a project (a wrong one is refused with the reason), the
 * project's webhook is made and the detail shows it Active; Remove deletes it at GitLab. No axe
 * violations on the way.
 */
const gitlab = fakeHooks();
let fake: FakeDeclaredProvider;
let story: ConsoleStory;
let app: TestApp;
let page: Page;
let ada: Operator;

beforeAll(async () => {
  const routes = hookRoutes(gitlab, {
    methods: ["POST", "DELETE", "GET"],
    pattern: /^\/api\/api\/v4\/projects\/([^/]+)\/hooks(?:\/([^/]+))?$/,
    unauthorized: () => jsonReply(401, { message: "401 Unauthorized" }),
    handle({ method, body, grant, params: [project, hookId] }) {
      if (method === "POST") return jsonReply(201, { id: Number(gitlab.add(grant.identity.id, { ...body, project }).id), url: body.url });
      if (method === "GET") return gitlab.hooks.has(hookId) ? jsonReply(200, { id: Number(hookId) }) : jsonReply(404, { message: "404 Not Found" });
      gitlab.hooks.delete(hookId);
      return { status: 204, body: "" };
    },
  });
  fake = await startDeclaredProvider(findConnector("gitlab")!, { routes });
  story = await startConsoleStory({ env: fake.env(), viewport: { width: 1280, height: 900 }, timeoutMs: 15_000 });
  ({ app, operator: ada, page } = story);
  await listTriggers(app, ada, [{ connector: "gitlab", trigger: "push" }]);
  await connectAccount(app, ada, { connector: "gitlab", account: "alice", provider: fake, params: {} });
}, 180_000);
afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page, "resources-failed");
});
afterAll(async () => {
  await story?.close();
  await fake?.close();
});

test("the operator names a project, sees its webhook Active, and removes it", async () => {
  await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/accounts`);
  await page.getByRole("table", { name: "Connections" }).getByRole("button", { name: "Details of alice" }).click();
  await page.getByText("Watching nothing: its subscriptions need a resource and it names none.").waitFor();
  const form = page.getByRole("form", { name: "Watch a resource with alice" });
  await expectNoAxeViolations(page, "Connections (no resource)");

  await form.getByLabel("project_id").fill("not a project");
  await form.getByRole("button", { name: "Watch" }).click();
  await form.getByText(/params\.project_id must be/).waitFor();
  await expectNoAxeViolations(page, "Connections (a refused resource)");

  await form.getByLabel("project_id").fill("278964");
  await form.getByRole("button", { name: "Watch" }).click();
  await page.getByRole("status").filter({ hasText: "alice now watches project_id 278964." }).waitFor();
  const resources = page.getByRole("table", { name: "Watched resources" });
  const row = resources.getByRole("row").nth(1);
  await row.getByRole("cell", { name: "project_id 278964", exact: true }).waitFor();
  await row.getByText("Not subscribed yet").waitFor();

  await app.app.subscriptions.runOnce(true);
  expect(gitlab.live().map((h) => h.body.project)).toEqual(["278964"]);
  await page.reload();
  await page.getByRole("table", { name: "Connections" }).getByRole("button", { name: "Details of alice" }).click();
  await page.getByRole("table", { name: "Watched resources" }).getByRole("row").nth(1).getByText("Active", { exact: true }).waitFor();
  await page.getByText("Watching the resources below, each with its own subscription at the provider.").waitFor();
  await expectNoAxeViolations(page, "Connections (a watched resource)");

  await page.getByRole("table", { name: "Watched resources" }).getByRole("button", { name: "Remove project_id 278964" }).click();
  await page.getByRole("status").filter({ hasText: "alice no longer watches project_id 278964" }).waitFor();
  await app.app.subscriptions.runOnce(true);
  expect(gitlab.live()).toEqual([]);
  expect(gitlab.made("DELETE")).toHaveLength(1);
}, 120_000);
