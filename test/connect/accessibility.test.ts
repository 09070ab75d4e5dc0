import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, test } from "vitest";
import { expectNoAxeViolations } from "../helpers/axe.ts";
import { formIn, getAuthUrl, hop, walkConnectFlow } from "../helpers/connectFlow.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { launchChromium, screenshotIfFailed } from "../console/browser.ts";

/**
 * The hosted connect pages an end user meets have no axe-core WCAG 2.1 AA violation, each checked
 * in Chromium where a person would see it: the connect page, our consent page, the done page, the
 * cancellation, and the pages for a link that is expired, already used, cancelled or not valid, a
 * callback whose state was tampered with, one opened in another browser, and access denied at the
 * provider. At phone width too.
 */

let app: TestApp;
let github: FakeGitHub;
let browser: Browser;
let ada: Operator;
let page: Page;

beforeAll(async () => {
  github = await startFakeGitHub({ user: { id: 4242, login: "alice-gh" } });
  app = await startTestApp(github.env());
  ada = await createOperator(app, "Ada");
  browser = await launchChromium();
}, 120_000);

afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page, "a11y-connect-failed");
  await page?.context().close();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await github?.close();
});

/** A fresh browser (its own cookies), as the end user who was handed the link. */
async function endUser(viewport = { width: 1280, height: 860 }): Promise<Page> {
  page = await (await browser.newContext({ viewport })).newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

/** Soft: a page with violations does not stop the walk, each page is reported. */
const check = (target: Page, where: string) => expectNoAxeViolations(target, where, { soft: true });
const h1 = (target: Page) => target.getByRole("heading", { level: 1 });
const press = (target: Page, name: string) => target.getByRole("button", { name, exact: true }).click();

/** Continue on our pages up to the provider's authorize page (not ours: it is not checked). */
async function toProvider(target: Page, authUrl: string): Promise<void> {
  await target.goto(authUrl);
  await press(target, "Continue");
  await target.waitForURL(/\/consent$/);
  await press(target, "Continue");
  await target.waitForURL((url) => url.toString().startsWith(github.authorizeUrl));
}

describe("every hosted connect page passes axe-core's WCAG 2.1 AA rules", () => {
  test("connect → consent → done", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "alice");
    const page = await endUser();
    await page.goto(authUrl);
    await h1(page).getByText("Connect your GitHub account").waitFor();
    await check(page, "the connect page");
    await press(page, "Continue");
    await page.waitForURL(/\/consent$/);
    await check(page, "the consent page");
    await press(page, "Continue");
    await press(page, "Approve");
    await h1(page).getByText("Your GitHub account is connected").waitFor();
    await check(page, "the done page");

    // The same link again: already used.
    await page.goto(authUrl);
    await h1(page).getByText("This link was already used").waitFor();
    await check(page, "the already-used page");
  });

  test("Cancel on the consent page, then the cancelled link", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "cancels");
    const page = await endUser();
    await page.goto(authUrl);
    await press(page, "Continue");
    await press(page, "Cancel");
    await h1(page).getByText("Connection cancelled").waitFor();
    await check(page, "the cancellation page");
    await page.goto(authUrl);
    await h1(page).getByText("This connection was cancelled").waitFor();
    await check(page, "the cancelled-link page");
  });

  test("an expired link", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "late");
    await app.database.prisma.connectSession.updateMany({ where: { deploymentId: ada.deploymentId, account: "late" }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const page = await endUser();
    await page.goto(authUrl);
    await h1(page).getByText("This link has expired").waitFor();
    await check(page, "the expired-link page");
  });

  test("a link that is not valid", async () => {
    const page = await endUser();
    await page.goto(`${app.url}/connect/${"x".repeat(43)}`);
    await h1(page).getByText("This link is not valid").waitFor();
    await check(page, "the not-valid page");
  });

  test("a callback whose state was tampered with, and one opened in another browser", async () => {
    // Someone else walks the flow up to the provider's answer; the end user opens where it leads.
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "tampered");
    const walk = await walkConnectFlow(authUrl, { stopAtProvider: true });
    const authorize = await hop("GET", walk.providerAuthorizeUrl!);
    const approved = await hop("POST", formIn(authorize).action, { ...formIn(authorize).fields, decision: "approve" });
    const callback = new URL(approved.location!);
    const forged = new URL(callback);
    forged.searchParams.set("state", `${callback.searchParams.get("state")!.slice(0, -2)}xx`);

    const page = await endUser();
    await page.goto(forged.toString());
    await h1(page).getByText("This sign-in could not be verified").waitFor();
    await check(page, "the state-mismatch page");
    await page.goto(callback.toString());
    await h1(page).getByText("This sign-in was started in another browser").waitFor();
    await check(page, "the another-browser page");
  });

  test("access denied at the provider", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "denies");
    const page = await endUser();
    await toProvider(page, authUrl);
    await press(page, "Deny");
    await h1(page).getByText("Access was not allowed").waitFor();
    await check(page, "the access-denied page");
  });

  test("at phone width: the connect and consent pages", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "phone");
    const page = await endUser({ width: 390, height: 844 });
    await page.goto(authUrl);
    await h1(page).getByText("Connect your GitHub account").waitFor();
    await check(page, "the connect page at 390 px");
    await press(page, "Continue");
    await page.waitForURL(/\/consent$/);
    await check(page, "the consent page at 390 px");
  });
});
