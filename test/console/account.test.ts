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

test("invite an address on the Members page; the invited person opens the link, signs up through it (sign-up closed) and lands in the organization", async () => {
  await logInWith(page, password);
  await page.goto(`${app.url}/console/organizations/${organizationId}/members`);
  const form = page.getByRole("form", { name: "Invite a member" });
  await form.getByLabel("Email").fill("Newcomer@Example.com");
  await form.getByLabel("Role").selectOption({ label: "Admin" });
  await form.getByRole("button", { name: "Invite", exact: true }).click();
  // The link is shown once, like an API key, with a copy button.
  await page.getByText("Copy the invitation link for newcomer@example.com now. It will not be shown again.").waitFor();
  const link = (await page.getByTestId("invitation-link").textContent()) ?? "";
  expect(link).toMatch(new RegExp(`^${app.url}/console/invitations/sy_inv_[A-Za-z0-9_-]{43}$`));
  expect(await form.getByRole("button", { name: "Copy" }).isVisible()).toBe(true);
  const pending = page.getByRole("table", { name: "Pending invitations" });
  await pending.getByText("newcomer@example.com").waitFor();
  await screenshot(page, "15-invitations");

  // Revoking works from the same list (a second invitation, so the first stays for the sign-up).
  await form.getByLabel("Email").fill("changed-my-mind@example.com");
  await form.getByRole("button", { name: "Invite", exact: true }).click();
  await pending.getByText("changed-my-mind@example.com").waitFor();
  await pending.getByRole("button", { name: "Revoke the invitation for changed-my-mind@example.com" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
  await page.getByText("The invitation for changed-my-mind@example.com was revoked.").waitFor();
  await pending.getByText("changed-my-mind@example.com").waitFor({ state: "detached" });

  const newcomer = await browser.newContext();
  try {
    const visitor = await newcomer.newPage();
    visitor.setDefaultTimeout(10_000);
    // A stranger is told how to get in; typing the invited address is not enough either.
    await visitor.goto(`${app.url}/console/signup`);
    await visitor.getByLabel("Your name").fill("Squatter");
    await visitor.getByLabel("Email").fill("newcomer@example.com");
    await visitor.getByLabel("Password").fill("some passphrase 3");
    await visitor.getByRole("button", { name: "Sign up" }).click();
    await visitor.getByRole("alert").getByText(/Sign-up is closed.*invite your email address/).waitFor();

    // A link that is not (or no longer) valid says so.
    await visitor.goto(`${link}x`);
    await visitor.getByRole("heading", { name: "This invitation link is not valid" }).waitFor();

    await visitor.goto(link);
    await visitor.getByRole("heading", { name: "Join Acme" }).waitFor();
    await visitor.getByText("Log in with newcomer@example.com to accept, or create an account with that address.").waitFor();
    await screenshot(visitor, "18-invitation");
    await visitor.getByRole("link", { name: "Sign up with newcomer@example.com" }).click();
    await visitor.getByTestId("signup-invitation").getByText(/You are joining Acme as admin/).waitFor();
    expect(await visitor.getByTestId("signup-policy").count()).toBe(0);
    await visitor.getByLabel("Your name").fill("Newcomer");
    await expect.poll(() => visitor.getByLabel("Email").inputValue()).toBe("newcomer@example.com");
    await visitor.getByLabel("Password").fill("some passphrase 3");
    await visitor.getByRole("button", { name: "Sign up" }).click();
    await visitor.getByRole("heading", { name: "Acme" }).waitFor();
    expect(new URL(visitor.url()).pathname).toBe(`/console/organizations/${organizationId}/integration`);
    await visitor.getByText("Admin", { exact: true }).waitFor();
  } finally {
    await newcomer.close();
  }

  await page.reload();
  await page.getByRole("table", { name: "Members" }).getByText("newcomer@example.com").waitFor();
  await page.getByText("No pending invitations.").waitFor();
});

test("someone who already has an account accepts with the link while logged in; a different account is told whose it is", async () => {
  const Invite = graphql(`
    mutation ConsoleTestInvite($org: ID!, $email: String!) {
      inviteMember(organizationId: $org, email: $email, role: MEMBER) { __typename ... on Invitation { acceptUrl } }
    }
  `);
  const ownerToken = ok(await app.gql(LogIn, { email, password })).logIn.token;
  // Someone who signed up through an invitation to another organization of Grace's.
  const { createOrganization: lab } = ok(await app.gql(CreateOrganization, { name: "Lab" }, { token: ownerToken }));
  const first = ok(await app.gql(Invite, { org: lab.id, email: "ada@example.com" }, { token: ownerToken })).inviteMember;
  const firstLink = first.__typename === "Invitation" ? first.acceptUrl! : "";
  ok(await app.gql(SignUp, { email: "ada@example.com", password: "ada passphrase 1", name: "Ada", invitationToken: firstLink.split("/").pop() }));
  const invited = ok(await app.gql(Invite, { org: organizationId, email: "ada@example.com" }, { token: ownerToken })).inviteMember;
  const link = invited.__typename === "Invitation" ? invited.acceptUrl! : "";

  // Grace (logged in on `page`) opens Ada's link: not hers to accept.
  await page.goto(link);
  await page.getByText(/This invitation was sent to ada@example.com, and you are logged in as grace@example.com/).waitFor();
  expect(await page.getByRole("button", { name: "Accept and join" }).count()).toBe(0);

  const adas = await browser.newContext();
  try {
    const ada = await adas.newPage();
    ada.setDefaultTimeout(10_000);
    await ada.goto(link);
    await ada.getByRole("link", { name: "Log in to accept" }).click();
    await ada.getByLabel("Email").fill("ada@example.com");
    await ada.getByLabel("Password").fill("ada passphrase 1");
    await ada.getByRole("button", { name: "Log in", exact: true }).click();
    // Back on the invitation after logging in.
    await ada.getByRole("heading", { name: "Join Acme" }).waitFor();
    await ada.getByRole("button", { name: "Accept and join" }).click();
    // `exact`: "Join Acme", the invitation's own heading, must not count as arriving.
    await ada.getByRole("heading", { name: "Acme", exact: true }).waitFor();
    await ada.waitForURL((url) => url.pathname === `/console/organizations/${organizationId}/integration`);
  } finally {
    await adas.close();
  }
});
