import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { buildConsole } from "../../scripts/build-console.ts";
import { graphql } from "../generated/gql.ts";
import { expectNoAxeViolations } from "../helpers/axe.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { CreateOrganization, InviteMember, invitationToken, SignUp } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { launchChromium, screenshotIfFailed } from "./browser.ts";

/**
 * Every page of the console has no axe-core WCAG 2.1 AA violation, checked in Chromium as a person
 * meets it: from the first-run sign-up on an empty install (SIGNUP=closed, so the sign-up page also
 * explains the policy), through an organization, its members and an invitation, each Settings
 * section with something in it (a key just shown, a trigger not saved yet, a connected account, a
 * delivered event with its attempts, charts, data items), dialogs, the account page, log-in with a
 * wrong password, and a phone-width screen.
 */

const CreateItem = graphql(`
  mutation ConsoleA11yCreateItem($deploymentId: ID!, $name: String!, $description: String!) {
    createDataItem(deploymentId: $deploymentId, name: $name, description: $description) { id }
  }
`);

const LogIn = graphql(`
  mutation ConsoleA11yLogIn($email: String!, $password: String!) {
    logIn(email: $email, password: $password) { token }
  }
`);

const acceptUrlOf = (invited: { __typename: string; acceptUrl?: string | null }): string => {
  if (invited.__typename !== "Invitation" || !invited.acceptUrl) throw new Error(`inviteMember answered ${invited.__typename}`);
  return invited.acceptUrl;
};

let app: TestApp;
let github: FakeGitHub;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  await buildConsole({ quiet: true });
  github = await startFakeGitHub();
  app = await startTestApp({ SIGNUP: "closed", ...github.env() }, { worker: true });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
}, 120_000);

afterEach(async ({ task }) => {
  await screenshotIfFailed(task, page, "a11y-failed");
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await github?.close();
});

const heading = (name: string | RegExp) => page.getByRole("heading", { name });
const button = (name: string | RegExp) => page.getByRole("button", { name });
const sideNav = (name: string) => page.getByRole("navigation", { name: /^Deployment( settings)?$/ }).getByRole("link", { name, exact: true });
/** Soft: a page with violations does not stop the story, each page is reported. */
const check = (where: string, target: Page = page) => expectNoAxeViolations(target, where, { soft: true });

describe("every console page passes axe-core's WCAG 2.1 AA rules", () => {
  const email = "ada@example.com";
  const password = "correct horse battery";
  let deploymentId = "";
  let organizationId = "";
  let apiKey = "";
  let invitationLink = "";

  test("first run: creating the first account", async () => {
    await page.goto(`${app.url}/`);
    await heading("Welcome — create the first account").waitFor();
    await check("the first-run sign-up page");
    await page.getByLabel("Your name").fill("Ada Lovelace");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await button("Sign up").click();
    await heading("Select an organization").waitFor();
  });

  test("organizations, with none yet", async () => {
    await page.getByText("You are not in any organization yet").waitFor();
    await check("the organizations page (empty)");
  });

  test("app integration", async () => {
    await page.getByLabel("Organization name").fill("Acme");
    await button("Create organization").click();
    await heading("Acme").waitFor();
    await page.getByRole("list", { name: "Deployments" }).getByText("production").waitFor();
    organizationId = new URL(page.url()).pathname.split("/")[3];
    await check("App Integration");
  });

  test("members, with an invitation link just made and a pending invitation", async () => {
    await page.getByRole("link", { name: "Members" }).click();
    await page.getByRole("table", { name: "Members" }).getByText(email).waitFor();
    await check("Members");
    const form = page.getByRole("form", { name: "Invite a member" });
    await form.getByLabel("Email").fill("grace@example.com");
    await form.getByRole("button", { name: "Invite", exact: true }).click();
    invitationLink = (await page.getByTestId("invitation-link").textContent()) ?? "";
    await page.getByRole("table", { name: "Pending invitations" }).getByText("grace@example.com").waitFor();
    await check("Members with the invitation link shown");
    await page.getByRole("button", { name: "Revoke the invitation for grace@example.com" }).click();
    await page.getByRole("dialog").waitFor();
    await check("the revoke confirmation dialog");
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
  });

  test("the invitation page, for the inviter", async () => {
    await page.goto(invitationLink);
    await page.getByRole("heading", { name: "Join Acme" }).waitFor();
    await check("the invitation page (logged in as someone else)");
  });

  test("API key, a new key shown once", async () => {
    await page.goto(`${app.url}/console/organizations/${organizationId}/integration`);
    await page.getByRole("list", { name: "Deployments" }).getByRole("link", { name: /development/ }).click();
    // A deployment opens on its Overview; the API key is under Settings.
    await page.getByRole("heading", { level: 1, name: "development", exact: true }).waitFor();
    await page.getByRole("heading", { name: "Overview", exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/\/overview$/);
    await sideNav("Settings").click();
    await page.getByRole("heading", { name: "API Key", exact: true }).waitFor();
    deploymentId = new URL(page.url()).pathname.split("/")[3];
    await page.getByText("This deployment has no API key yet.").waitFor();
    await check("API key (none yet)");
    await button("Generate API key").click();
    apiKey = (await page.getByTestId("new-api-key").textContent()) ?? "";
    await check("API key (shown once)");
  });

  test("trigger forwarding, with unsaved changes", async () => {
    await sideNav("Trigger Forwarding").click();
    await heading("Trigger Forwarding").waitFor();
    // Refused by the service: the reason under the field, the field marked invalid.
    await page.getByLabel("Forwarding URL").fill("ftp://example.com/hooks");
    await button("Save Changes").click();
    await page.getByText("must use http or https").waitFor();
    await check("Trigger Forwarding (a field refused)");
    await page.getByLabel("Forwarding URL").fill("https://example.com/hooks");
    await page.getByLabel("Connector", { exact: true }).selectOption({ label: "GitHub" });
    await page.getByLabel("Trigger", { exact: true }).selectOption({ label: "Issue opened" });
    await button("Add GitHub · Issue opened").click();
    await page.getByText("Unsaved changes").waitFor();
    // Searching: every hit is its own Add button; the one just added says it is in the list.
    await page.getByLabel("Search triggers").fill("issue opened");
    await page.getByRole("list", { name: "Matching triggers" }).getByRole("button", { name: "In the list: GitHub · Issue opened" }).waitFor();
    await check("Trigger Forwarding (search results, each with its own Add)");
    await check("Trigger Forwarding (unsaved)");
    await button("Save Changes").click();
    await page.getByText("Forwarding settings saved.").waitFor();
    await check("Trigger Forwarding (saved, with a toast)");
  });

  test("signing secret, hidden and revealed", async () => {
    await sideNav("Signing secret").click();
    await page.getByTestId("signing-secret").waitFor();
    await check("Signing secret (masked)");
    await button("Reveal").click();
    await button("Hide").waitFor();
    await check("Signing secret (revealed)");
  });

  test("connectors, the catalog and one opened with a test authorization URL", async () => {
    await sideNav("Connectors").click();
    const catalog = page.getByRole("list", { name: "Connector catalog" });
    await catalog.getByText("GitHub", { exact: true }).waitFor();
    await check("Connectors (catalog)");
    await catalog.getByRole("button", { name: /^GitHub issue tracker/ }).click();
    await page.getByTestId("webhook-url-github").waitFor();
    await page.getByLabel("Account").fill("alice");
    await button("Create authorization URL").click();
    await page.getByTestId("auth-url").waitFor();
    await check("Connectors (GitHub opened, authorization URL made)");
  });

  test("connections, with one connected and its details open", async () => {
    const authUrl = (await page.getByTestId("auth-url").getAttribute("href")) ?? "";
    const endUser = await context.newPage();
    await endUser.goto(authUrl);
    await endUser.getByRole("button", { name: "Continue" }).click();
    await endUser.getByRole("button", { name: "Continue" }).click();
    await endUser.getByRole("button", { name: "Approve" }).click();
    await endUser.getByRole("heading", { name: "Your GitHub account is connected" }).waitFor();
    await endUser.close();
    await sideNav("Connections").click();
    const table = page.getByRole("table", { name: "Connections" });
    await table.getByText("Active").waitFor();
    await check("Connections");
    await table.getByRole("button", { name: /^Details/ }).first().click();
    await page.getByRole("list", { name: /^Recent events of/ }).waitFor();
    await check("Connections (details open)");
  });

  test("events, a delivered event with its attempts open", async () => {
    await sideNav("Events").click();
    await page.getByTestId("live-state").getByText("Live").waitFor();
    await check("Events (the log first)");
    await button("Send a test event…").click();
    await page.getByRole("dialog", { name: "Send a test event" }).waitFor();
    await check("Events (the test-event dialog)");
    await button("Send test event: GitHub · Issue opened").click();
    // The test event's row, not the connection's own switchyard.connection_created (which has no delivery); opened when sent.
    const row = page.getByRole("table", { name: "Events" }).locator("tr[data-event-id]").filter({ hasText: "github.issue_opened" }).first();
    await row.waitFor();
    await page.getByTestId("sent-test-event").waitFor();
    await page.getByRole("list", { name: "Attempts" }).waitFor();
    await page.getByText("Filters", { exact: true }).click();
    await check("Events (details open, filters shown)");
  });

  test("overview, its tiles and charts, and the paused banner", async () => {
    await sideNav("Overview").click();
    await page.getByTestId("success-rate").waitFor();
    await page.locator(".chart canvas").nth(1).waitFor();
    await check("Overview");
    await button("Pause forwarding").click();
    await page.getByTestId("forwarding-banner").getByText("Forwarding is paused").waitFor();
    // The navigation says so too, on every page of the deployment.
    await page.getByTestId("nav-health").getByText("Forwarding paused").waitFor();
    await check("Overview (forwarding paused)");
    await button("Resume forwarding").click();
    await page.getByTestId("forwarding-banner").waitFor({ state: "detached" });
  });

  test("data, a page of items and the delete dialog", async () => {
    for (let i = 1; i <= 3; i++) ok(await app.gql(CreateItem, { deploymentId, name: `Item ${i}`, description: `Number ${i}` }, { apiKey }));
    await sideNav("Data").click();
    await page.getByText("1–3 of 3").waitFor();
    await check("Data");
    await page.getByRole("table", { name: "Data items" }).getByRole("button", { name: "Edit Item 1", exact: true }).click();
    await page.getByRole("table", { name: "Data items" }).getByRole("textbox", { name: "Name" }).waitFor();
    await check("Data (a row being edited)");
    await button("Cancel").click();
    await page.getByRole("table", { name: "Data items" }).getByRole("button", { name: "Delete Item 1" }).click();
    await page.getByRole("dialog").waitFor();
    await check("Data (the delete dialog)");
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
  });

  test("account", async () => {
    await page.getByRole("link", { name: "Ada Lovelace" }).click();
    await heading("Your account").waitFor();
    await check("Account");
    await page.getByLabel("Current password").fill("not my password");
    await page.getByLabel("New password").fill("another passphrase 2");
    await button("Change password").click();
    await page.getByText("is not correct").waitFor();
    await check("Account (a wrong current password)");
  });

  test("organizations with an invitation for you, and that invitation's page", async () => {
    // Someone Ada invited to a second organization invites her to theirs.
    const adaToken = ok(await app.gql(LogIn, { email, password })).logIn.token;
    const lab = ok(await app.gql(CreateOrganization, { name: "Lab" }, { token: adaToken })).createOrganization;
    const toHopper = ok(await app.gql(InviteMember, { organizationId: lab.id, email: "hopper@example.com", role: "OWNER" }, { token: adaToken })).inviteMember;
    const hopper = ok(await app.gql(SignUp, { email: "hopper@example.com", password, name: "Grace Hopper", invitationToken: invitationToken(acceptUrlOf(toHopper)) })).signUp;
    const yard = ok(await app.gql(CreateOrganization, { name: "Navy Yard" }, { token: hopper.token })).createOrganization;
    const toAda = ok(await app.gql(InviteMember, { organizationId: yard.id, email, role: "MEMBER" }, { token: hopper.token })).inviteMember;

    await page.goto(`${app.url}/console/organizations`);
    await page.getByRole("list", { name: "Invitations for you" }).getByText("Navy Yard").waitFor();
    await check("Organizations (an invitation for you)");
    await page.goto(acceptUrlOf(toAda));
    await button("Accept and join").waitFor();
    await check("the invitation page (yours to accept)");
  });

  test("a page that does not exist", async () => {
    await page.goto(`${app.url}/console/nowhere`);
    await heading("Page not found").waitFor();
    await check("Not found");
  });

  test("phone width: settings, members and events at 390 px", async () => {
    const phone = await context.newPage();
    phone.setDefaultTimeout(10_000);
    await phone.setViewportSize({ width: 390, height: 844 });
    try {
      await phone.goto(`${app.url}/console/deployments/${deploymentId}/forwarding`);
      await phone.getByLabel("Forwarding URL").waitFor();
      await check("Trigger Forwarding at 390 px", phone);
      await phone.goto(`${app.url}/console/deployments/${deploymentId}/events`);
      await phone.getByRole("table", { name: "Events" }).locator("tr[data-event-id]").first().waitFor();
      await check("Events at 390 px", phone);
      await phone.goto(`${app.url}/console/organizations/${organizationId}/members`);
      await phone.getByRole("table", { name: "Members" }).getByText(email).waitFor();
      await check("Members at 390 px", phone);
    } finally {
      await phone.close();
    }
  });

  test("log in, and log in with a wrong password", async () => {
    await page.goto(`${app.url}/console/account`);
    await page.getByRole("button", { name: "Log out", exact: true }).click();
    await heading("Log in to the console").waitFor();
    await check("Log in");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("wrong password");
    await button("Log in").click();
    await page.getByText("Email or password is incorrect.").waitFor();
    await check("Log in (wrong password)");
  });

  test("sign-up when sign-up is closed", async () => {
    await page.goto(`${app.url}/console/signup`);
    await page.getByTestId("signup-policy").waitFor();
    await check("Sign up (closed: the policy explained)");
  });

  test("the invitation page, logged out, and an invalid link", async () => {
    await page.goto(invitationLink);
    await heading("Join Acme").waitFor();
    await check("the invitation page (logged out)");
    await page.getByRole("link", { name: "Sign up with grace@example.com" }).click();
    await page.getByTestId("signup-invitation").waitFor();
    await check("Sign up through an invitation");
    await page.goto(`${invitationLink}x`);
    await heading("This invitation link is not valid").waitFor();
    await check("an invalid invitation link");
  });
});
