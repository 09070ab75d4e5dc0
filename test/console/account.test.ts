import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { buildConsole } from "../../scripts/build-console.ts";
import { graphql } from "../generated/gql.ts";
import { CreateOrganization, SignUp } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { launchChromium, screenshot, screenshotIfFailed } from "./browser.ts";

/**
 * The account page and invitations in a real browser, on an install with SIGNUP=closed: change
 * the password and log in with the new one; log out everywhere; invite an address, sign up with it,
 * and land in the organization.
 */

const LogIn = graphql(`
  mutation ConsoleTestAccountLogIn($email: String!, $password: String!) {
    logIn(email: $email, password: $password) { token }
  }
`);
const Viewer = graphql(`query ConsoleTestAccountViewer { viewer { email } }`);

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const email = "grace@example.com";
let password = "first passphrase 1";
let organizationId = "";

beforeAll(async () => {
  await buildConsole({ quiet: true });
  app = await startTestApp({ SIGNUP: "closed" });
  const { signUp } = ok(await app.gql(SignUp, { email, password, name: "Grace Hopper" }));
  organizationId = ok(await app.gql(CreateOrganization, { name: "Acme" }, { token: signUp.token })).createOrganization.id;
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
});

afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const heading = (name: string | RegExp) => page.getByRole("heading", { name });
const button = (name: string | RegExp) => page.getByRole("button", { name, exact: true });

async function logInWith(target: Page, withPassword: string) {
  await target.goto(`${app.url}/console/login`);
  await target.getByRole("heading", { name: "Log in to the console" }).waitFor();
  await target.getByLabel("Email").fill(email);
  await target.getByLabel("Password").fill(withPassword);
  await target.getByRole("button", { name: "Log in", exact: true }).click();
  await target.getByRole("heading", { name: "Select an organization" }).waitFor();
}

test("change the password on the account page, then log in with the new one", async () => {
  await logInWith(page, password);
  const elsewhere = ok(await app.gql(LogIn, { email, password })).logIn.token;

  await page.getByRole("link", { name: "Grace Hopper" }).click();
  await heading("Your account").waitFor();
  await page.getByLabel("Current password").fill("not my password");
  await page.getByLabel("New password").fill("second passphrase 2");
  await button("Change password").click();
  await page.getByText("is not correct").waitFor();

  await page.getByLabel("Current password").fill(password);
  await button("Change password").click();
  await page.getByText("Password changed. Every other session has been logged out.").waitFor();
  await screenshot(page, "14-account");
  password = "second passphrase 2";
  // The other session ended; this one did not.
  expect(errorCode(await app.gql(Viewer, {}, { token: elsewhere }))).toBe("UNAUTHENTICATED");
  await page.reload();
  await heading("Your account").waitFor();

  await button("Log out").click();
  await heading("Log in to the console").waitFor();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("first passphrase 1");
  await button("Log in").click();
  await page.getByText("Email or password is incorrect.").waitFor();
  await page.getByLabel("Password").fill(password);
  await button("Log in").click();
  await heading("Select an organization").waitFor();
});

test("log out everywhere ends this browser's session, another browser's and the CLI's token", async () => {
  const other = await browser.newContext();
  try {
    const otherPage = await other.newPage();
    otherPage.setDefaultTimeout(10_000);
    await logInWith(otherPage, password);
    const cliToken = ok(await app.gql(LogIn, { email, password })).logIn.token;

    await page.goto(`${app.url}/console/account`);
    await heading("Your account").waitFor();
    await button("Log out everywhere").click();
    await page.getByRole("dialog").getByRole("button", { name: "Log out everywhere" }).click();
    await heading("Log in to the console").waitFor();

    expect(errorCode(await app.gql(Viewer, {}, { token: cliToken }))).toBe("UNAUTHENTICATED");
    await otherPage.reload();
    await otherPage.getByRole("heading", { name: "Log in to the console" }).waitFor();
  } finally {
    await other.close();
  }
});

test("invite an address on the Members page; signing up with it (sign-up closed) lands in the organization", async () => {
  await logInWith(page, password);
  await page.goto(`${app.url}/console/organizations/${organizationId}/members`);
  const form = page.getByRole("form", { name: "Add or invite a member" });
  await form.getByLabel("Email").fill("Newcomer@Example.com");
  await form.getByLabel("Role").selectOption({ label: "Admin" });
  await form.getByRole("button", { name: "Add or invite" }).click();
  await page.getByText("newcomer@example.com invited as admin.").waitFor();
  const pending = page.getByRole("table", { name: "Pending invitations" });
  await pending.getByText("newcomer@example.com").waitFor();
  await screenshot(page, "15-invitations");

  // Revoking works from the same list (a second invitation, so the first stays for the sign-up).
  await form.getByLabel("Email").fill("changed-my-mind@example.com");
  await form.getByRole("button", { name: "Add or invite" }).click();
  await pending.getByText("changed-my-mind@example.com").waitFor();
  await pending.getByRole("button", { name: "Revoke the invitation for changed-my-mind@example.com" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
  await page.getByText("The invitation for changed-my-mind@example.com was revoked.").waitFor();
  await pending.getByText("changed-my-mind@example.com").waitFor({ state: "detached" });

  const newcomer = await browser.newContext();
  try {
    const signUpPage = await newcomer.newPage();
    signUpPage.setDefaultTimeout(10_000);
    // A stranger is told how to get in.
    await signUpPage.goto(`${app.url}/console/signup`);
    await signUpPage.getByLabel("Your name").fill("Stranger");
    await signUpPage.getByLabel("Email").fill("stranger@example.com");
    await signUpPage.getByLabel("Password").fill("some passphrase 3");
    await signUpPage.getByRole("button", { name: "Sign up" }).click();
    await signUpPage.getByRole("alert").getByText(/Sign-up is closed.*invite your email address/).waitFor();

    await signUpPage.getByLabel("Your name").fill("Newcomer");
    await signUpPage.getByLabel("Email").fill("newcomer@example.com");
    await signUpPage.getByRole("button", { name: "Sign up" }).click();
    await signUpPage.getByRole("heading", { name: "Acme" }).waitFor();
    expect(new URL(signUpPage.url()).pathname).toBe(`/console/organizations/${organizationId}/integration`);
    await signUpPage.getByText("Admin", { exact: true }).waitFor();
  } finally {
    await newcomer.close();
  }

  await page.reload();
  await page.getByRole("table", { name: "Members" }).getByText("newcomer@example.com").waitFor();
  await page.getByText("No pending invitations.").waitFor();
});
