import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { type ConsoleStory, startConsoleStory } from "../helpers/consoleStory.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import type { TestApp } from "../helpers/testApp.ts";
import { screenshot, screenshotIfFailed } from "./browser.ts";

/** The promises of the settings forms, each in a fresh tab of a logged-in operator. */

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

/** A tab that is logged in the way the console is: the HttpOnly session cookie. */
async function openAs(operator: Operator, path: string, viewport = { width: 1280, height: 860 }): Promise<Page> {
  page = await story.newPage({ as: operator, viewport });
  await page.goto(`${app.url}/console${path}`);
  return page;
}
afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page);
  await page?.context().close();
});

describe("Trigger Forwarding form", () => {
  test("Save Changes is disabled until something changes, and again once it is undone", async () => {
    const page = await openAs(ada, `/deployments/${ada.productionDeploymentId}/forwarding`);
    const save = page.getByRole("button", { name: "Save Changes" });
    await save.waitFor();
    expect(await save.isDisabled()).toBe(true);
    const url = page.getByLabel("Forwarding URL");
    await url.fill("https://example.com/hooks");
    expect(await save.isEnabled()).toBe(true);
    await url.fill("");
    expect(await save.isDisabled()).toBe(true);

    // The browse row's Add names what it would add, and nothing until a trigger is chosen.
    const browseAdd = page.locator(".browse-add");
    expect(await browseAdd.textContent()).toBe("Add trigger");
    expect(await browseAdd.getAttribute("aria-disabled")).toBe("true");
    await page.getByLabel("Connector", { exact: true }).selectOption({ label: "Slack" });
    await page.getByLabel("Trigger", { exact: true }).selectOption({ label: "Message posted" });
    // By keyboard: Tab from the Trigger select reaches that Add, Enter adds.
    await page.getByLabel("Trigger", { exact: true }).focus();
    await page.keyboard.press("Tab");
    const focused = page.getByRole("button", { name: "Add Slack · Message posted", exact: true });
    expect(await focused.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await page.getByRole("list", { name: "Forwarding Trigger List" }).getByText("Slack · Message posted").waitFor();
    expect(await browseAdd.textContent()).toBe("In the list: Slack · Message posted");
    expect(await save.isEnabled()).toBe(true);
    await page.getByRole("button", { name: "Remove Slack · Message posted" }).click();
    expect(await save.isDisabled()).toBe(true);
  });

  test("a bad URL is refused by the service and the reason is shown under the field", async () => {
    const page = await openAs(ada, `/deployments/${ada.deploymentId}/forwarding`);
    await page.getByLabel("Forwarding URL").fill("ftp://example.com/hooks");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await page.getByText("must use http or https").waitFor();
    await page.getByText("Not saved: fix the fields marked below the inputs").waitFor();
    expect(await page.getByLabel("Forwarding URL").getAttribute("aria-invalid")).toBe("true");

    // Corrected, the stale message goes at once (before any save).
    await page.getByLabel("Forwarding URL").fill("https://example.com/fixed");
    await page.getByText("must use http or https").waitFor({ state: "detached" });
    expect(await page.getByLabel("Forwarding URL").getAttribute("aria-invalid")).not.toBe("true");
    await page.getByText("Not saved: fix the fields marked below the inputs").waitFor({ state: "detached" });

    await page.getByLabel("Forwarding URL").fill("not a url");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await page.getByText("must be an absolute http:// or https:// URL").waitFor();

    // A header key without a value is refused too, naming the field.
    await page.getByLabel("Forwarding URL").fill("https://example.com/hooks");
    await page.getByLabel("Forwarding Header Key (optional)").fill("X-Token");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await page.getByText("is required when a header key is given").waitFor();
  });

  test("leaving with unsaved changes asks first; cancelling stays on the form", async () => {
    const page = await openAs(ada, `/deployments/${ada.deploymentId}/forwarding`);
    await page.getByLabel("Forwarding URL").fill("https://example.com/unsaved");
    const asked: string[] = [];
    page.once("dialog", (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole("navigation", { name: "Deployment", exact: true }).getByRole("link", { name: "Data" }).click();
    expect(asked).toEqual(["You have unsaved changes to Trigger Forwarding. Leave without saving?"]);
    expect(new URL(page.url()).pathname).toBe(`/console/deployments/${ada.deploymentId}/forwarding`);
    expect(await page.getByLabel("Forwarding URL").inputValue()).toBe("https://example.com/unsaved");

    // Closing or reloading the tab: the page asks the browser for its own prompt (beforeunload).
    const asksToStay = () =>
      page.evaluate(() => {
        const event = new Event("beforeunload", { cancelable: true });
        window.dispatchEvent(event);
        return event.defaultPrevented;
      });
    expect(await asksToStay()).toBe(true);
    await page.getByLabel("Forwarding URL").fill("");
    expect(await asksToStay()).toBe(false);
  });
});

describe("API key", () => {
  test("the key is shown once: after a reload only its prefix and dates remain", async () => {
    const page = await openAs(ada, `/deployments/${ada.deploymentId}/api-key`);
    await page.getByRole("button", { name: "Generate a new key" }).click();
    // A key exists (createOperator made one): confirm, with a grace period for the old one.
    const dialog = page.getByRole("dialog");
    await dialog.getByText("stops working").first().waitFor();
    await dialog.getByLabel("Old key stops working").selectOption({ label: "In 1 hour" });
    await dialog.getByRole("button", { name: "Generate new key" }).click();
    const key = (await page.getByTestId("new-api-key").textContent()) ?? "";
    expect(key).toMatch(/^sy_/);
    // The key's summary below switches to the new key's prefix.
    const prefix = page.getByTestId("api-key-prefix");
    await expect.poll(async () => key.startsWith(((await prefix.textContent()) ?? "").replace("…", "")), { timeout: 10_000 }).toBe(true);

    await page.reload();
    await page.getByTestId("api-key-prefix").waitFor();
    expect(await page.getByTestId("new-api-key").count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    expect(await page.getByText("Last used").isVisible()).toBe(true);
  });
});

describe("phone width", () => {
  test("the settings and organization pages fit 390px without sideways scrolling", async () => {
    const page = await openAs(ada, `/deployments/${ada.deploymentId}/forwarding`, { width: 390, height: 844 });
    await page.getByLabel("Forwarding URL").waitFor();
    for (const path of [`/deployments/${ada.deploymentId}/forwarding`, `/deployments/${ada.deploymentId}/data`, `/organizations/${ada.organizationId}/members`]) {
      await page.goto(`${app.url}/console${path}`);
      await page.getByRole("heading", { level: 2 }).first().waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/forwarding`);
    await page.getByLabel("Forwarding URL").waitFor();
    await screenshot(page, "13-phone-trigger-forwarding");
  });
});

describe("access", () => {
  test("not logged in, a deep link goes to Log in and comes back after it", async () => {
    page = await (await story.browser.newContext()).newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${app.url}/console/deployments/${ada.deploymentId}/data`);
    await page.getByRole("heading", { name: "Log in to the console" }).waitFor();
    expect(new URL(page.url()).searchParams.get("next")).toBe(`/deployments/${ada.deploymentId}/data`);
  });

  test("another organization's deployment is not shown to someone outside it", async () => {
    const mallory = await createOperator(app, "Mallory");
    const page = await openAs(mallory, `/deployments/${ada.deploymentId}/api-key`);
    await page.getByText("You do not have access to this.").waitFor();
    expect(await page.content()).not.toContain(ada.apiKey.slice(0, 12));
  });
});
