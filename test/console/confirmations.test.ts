import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { type ConsoleStory, startConsoleStory } from "../helpers/consoleStory.ts";
import { createOperator, joinByInvitation, type Operator } from "../helpers/operators.ts";
import type { TestApp } from "../helpers/testApp.ts";
import { screenshotIfFailed } from "./browser.ts";

/** The console's "are you sure?" dialogs: Cancel changes nothing; confirming does it and says so. */

let story: ConsoleStory;
let app: TestApp;
let ada: Operator;
let page: Page | undefined;

beforeAll(async () => {
  story = await startConsoleStory();
  ({ app, operator: ada } = story);
});
afterAll(async () => {
  await story?.close();
});

async function openAs(operator: Operator, path: string): Promise<Page> {
  page = await story.newPage({ as: operator });
  await page.goto(`${app.url}/console${path}`);
  return page;
}
afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page);
  await page?.context().close();
});

test("rotating the signing secret asks first: Cancel keeps the secret, Rotate replaces it and says the old one signs alongside for a day", async () => {
  const page = await openAs(ada, `/deployments/${ada.deploymentId}/signing-secret`);
  await page.getByRole("button", { name: "Reveal" }).click();
  const secret = page.getByTestId("signing-secret");
  const before = await secret.textContent();
  expect(before).toMatch(/^whsec_/);

  await page.getByRole("button", { name: "Rotate secret" }).click();
  const dialog = page.getByRole("dialog", { name: "Rotate the signing secret?" });
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "hidden" });
  expect(await secret.textContent()).toBe(before);

  await page.getByRole("button", { name: "Rotate secret" }).click();
  await dialog.getByRole("button", { name: "Rotate" }).click();
  await page.getByRole("status").filter({ hasText: "Signing secret rotated. The old one keeps signing alongside for 24 hours." }).waitFor();
  await dialog.waitFor({ state: "hidden" });
  await expect.poll(() => secret.textContent()).not.toBe(before);
});

test("removing a member asks first, names them when it is done, and the list no longer shows them", async () => {
  const grace = await createOperator(app, "Grace");
  await joinByInvitation(app.gql, ada.token, ada.organizationId, grace);
  const page = await openAs(ada, `/organizations/${ada.organizationId}/members`);
  const members = page.getByRole("table", { name: "Members" });
  const row = members.getByRole("row").filter({ hasText: grace.email });
  await row.waitFor();

  await row.getByRole("button", { name: "Remove" }).click();
  const dialog = page.getByRole("dialog", { name: "Remove this member?" });
  await dialog.getByText("Grace loses access to this organization").waitFor();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "hidden" });
  expect(await row.count()).toBe(1);

  await row.getByRole("button", { name: "Remove" }).click();
  await dialog.getByRole("button", { name: "Remove" }).click();
  await page.getByRole("status").filter({ hasText: "Grace is no longer a member." }).waitFor();
  await row.waitFor({ state: "detached" });
});
