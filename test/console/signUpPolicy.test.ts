import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { buildConsole } from "../../scripts/build-console.ts";
import { graphql } from "../generated/gql.ts";
import { SignUp } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { launchChromium, screenshotIfFailed } from "./browser.ts";

/**
 * The log-in and sign-up pages say who may sign up, in a real browser: with SIGNUP=closed (the
 * production default) the link is for invited people and the sign-up page explains the policy
 * before anyone types a password; with SIGNUP=open both pages are as they always were.
 */

const Policy = graphql(`query ConsoleTestSignUpPolicy { signUpPolicy }`);

let closed: TestApp;
let open: TestApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  await buildConsole({ quiet: true });
  [closed, open] = await Promise.all([startTestApp({ SIGNUP: "closed" }), startTestApp({ SIGNUP: "open" })]);
  // Not a first run on either: somebody has signed up.
  for (const app of [closed, open]) ok(await app.gql(SignUp, { email: "first@example.com", password: "correct horse battery", name: "First" }));
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  page.setDefaultTimeout(10_000);
});

afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page);
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([closed?.close(), open?.close()]);
});

test("GraphQL says whether sign-up is open, to anyone", async () => {
  expect(ok(await closed.gql(Policy)).signUpPolicy).toBe("CLOSED");
  expect(ok(await open.gql(Policy)).signUpPolicy).toBe("OPEN");
});

test("sign-up closed: the log-in page invites only the invited, and the sign-up page explains the policy first", async () => {
  await page.goto(`${closed.url}/console/login`);
  await page.getByRole("heading", { name: "Log in to the console" }).waitFor();
  await page.getByText("Invited?").waitFor();
  expect(await page.getByText("New here?").count()).toBe(0);
  await page.getByRole("link", { name: "Create your account" }).click();

  await page.getByRole("heading", { name: "Create your account" }).waitFor();
  const notice = page.getByTestId("signup-policy");
  await notice.waitFor();
  expect(await notice.textContent()).toMatch(/Sign-up on this Switchyard is by invitation\. Open the invitation link an owner of your organization sent you/);
  // Said before the form: above the password field, with nothing typed yet.
  const noticeBox = (await notice.boundingBox())!;
  const passwordBox = (await page.getByLabel("Password").boundingBox())!;
  expect(noticeBox.y).toBeLessThan(passwordBox.y);
  expect(await page.getByLabel("Password").inputValue()).toBe("");

  // The first-account greeting (a fresh install) is not told it needs an invitation.
  await page.goto(`${closed.url}/console/signup?first=1`);
  await page.getByRole("heading", { name: "Welcome — create the first account" }).waitFor();
  await page.waitForLoadState("networkidle");
  expect(await page.getByTestId("signup-policy").count()).toBe(0);
});

test("sign-up open: unchanged — “New here? Create an account”, and no policy notice", async () => {
  await page.goto(`${open.url}/console/login`);
  await page.getByRole("heading", { name: "Log in to the console" }).waitFor();
  await page.getByText("New here?").waitFor();
  expect(await page.getByText("Invited?").count()).toBe(0);
  await page.getByRole("link", { name: "Create an account" }).click();
  await page.getByRole("heading", { name: "Create your account" }).waitFor();
  await page.getByLabel("Password").waitFor();
  expect(await page.getByTestId("signup-policy").count()).toBe(0);
});
