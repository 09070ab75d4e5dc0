import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { expectNoAxeViolations } from "../helpers/axe.ts";
import { getAuthUrl } from "../helpers/connectFlow.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { launchChromium, screenshot, screenshotIfFailed } from "../console/browser.ts";

/**
 * The consent page an end user meets is one short card, even for GitHub and its hundreds of
 * triggers: the connector, what is accessed in words, and one line naming only the triggers the
 * deployment forwards (five at most, "and N more"), with Continue on the first screen of a phone
 * and of a laptop. The used link and the done page speak to the end user, not the operator.
 */

let app: TestApp;
let github: FakeGitHub;
let browser: Browser;
let ada: Operator;
let page: Page | undefined;

const LISTED = ["issue_opened", "issue_closed", "push", "pull_request_opened", "issue_comment_created", "release_published", "star_created"];
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

beforeAll(async () => {
  github = await startFakeGitHub({ user: { id: 4242, login: "alice-gh" } });
  app = await startTestApp(github.env());
  ada = await createOperator(app, "Ada");
  browser = await launchChromium();
}, 120_000);

afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page, "consent-failed");
  await page?.context().close();
  page = undefined;
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await github?.close();
});

async function openConsent(account: string, viewport: { width: number; height: number }): Promise<Page> {
  const authUrl = await getAuthUrl(app, ada.apiKey, "github", account);
  page = await (await browser.newContext({ viewport })).newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(authUrl);
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await page.waitForURL(/\/consent$/);
  return page;
}

describe("the consent page is one card with Continue above the fold", () => {
  test("GitHub's catalog has hundreds of triggers; only the deployment's list is named", () => {
    const github = findConnector("github")!;
    expect(github.triggers.length).toBeGreaterThan(200);
    for (const name of LISTED) expect(github.triggers.some((t) => t.name === name), name).toBe(true);
  });

  test("with no trigger listed for the connector, no events line at all", async () => {
    const consent = await openConsent("no-triggers", VIEWPORTS[0]);
    expect(await consent.locator("main").textContent()).not.toMatch(/Events from your account/);
  });

  for (const viewport of VIEWPORTS) {
    test(`at ${viewport.width}×${viewport.height}: five listed names and "and 2 more", Continue visible without scrolling`, async () => {
      ok(await app.gql(SaveForwardingSettings, {
        deploymentId: ada.deploymentId,
        input: { forwardingUrl: "http://127.0.0.1:9/hook", triggers: LISTED.map((trigger) => ({ connector: "github", trigger })) },
      }, { token: ada.token }));
      const consent = await openConsent(`card-${viewport.width}`, viewport);
      const events = (await consent.locator("p.events").textContent())!;
      expect(events).toBe("Events from your account are passed on to Ada's org: issue opened, issue closed, issue comment created, pull request opened, commits pushed and 2 more.");
      // Not the catalog: a trigger that is not listed is not named.
      expect(await consent.locator("main").textContent()).not.toMatch(/branch protection|check run/i);

      const height = await consent.evaluate(() => document.documentElement.scrollHeight);
      expect(height, "the page fits the screen").toBeLessThanOrEqual(viewport.height);
      const box = (await consent.getByRole("button", { name: "Continue", exact: true }).boundingBox())!;
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height, "Continue is on the first screen").toBeLessThanOrEqual(viewport.height);
      expect(await consent.evaluate(() => window.scrollY)).toBe(0);
      await expectNoAxeViolations(consent, `the consent page at ${viewport.width}px`);
      await screenshot(consent, viewport.width === 390 ? "21-consent-phone" : "22-consent-desktop");
    });
  }

  test("done page names the end user's GitHub identity, not the operator's account id; the used link is not an error", async () => {
    const consent = await openConsent("acct_7f3a9c-internal", VIEWPORTS[0]);
    const authUrl = consent.url().replace(/\/consent$/, "");
    await consent.getByRole("button", { name: "Continue", exact: true }).click();
    await consent.getByRole("button", { name: "Approve" }).click();
    await consent.getByRole("heading", { level: 1, name: "Your GitHub account is connected" }).waitFor();
    const done = (await consent.locator("main").textContent())!;
    expect(done).toContain("alice-gh");
    expect(done).not.toContain("acct_7f3a9c-internal");
    await expectNoAxeViolations(consent, "the done page at 390px");

    const used = await consent.goto(authUrl);
    expect(used!.status()).toBe(410);
    await consent.getByRole("heading", { level: 1, name: "This link was already used" }).waitFor();
    // Neutral: the link did its job. Not the red of a failure.
    const color = await consent.getByRole("heading", { level: 1 }).evaluate((h) => getComputedStyle(h).color);
    expect(color).not.toBe("rgb(180, 35, 24)");
    expect(await consent.locator("main.error").count()).toBe(0);
    await expectNoAxeViolations(consent, "the already-used page at 390px");
  });
});
