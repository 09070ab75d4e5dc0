import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startFakeGitHub, startFakeGoogle, startFakeJira, startFakeSlack, type FakeGitHub, type FakeGoogle, type FakeJira, type FakeSlack } from "../helpers/fakeProviders/index.ts";
import { connectAccount, connectedAccounts, getAuthUrl, walkConnectFlow } from "../helpers/connectFlow.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

let app: TestApp;
let github: FakeGitHub;
let google: FakeGoogle;
let slack: FakeSlack;
let jira: FakeJira;
let ada: Operator;

beforeAll(async () => {
  [github, google, slack, jira] = await Promise.all([startFakeGitHub(), startFakeGoogle(), startFakeSlack(), startFakeJira()]);
  app = await startTestApp({ ...github.env(), ...google.env(), ...slack.env(), ...jira.env() });
  ada = await createOperator(app, "Ada");
});
afterAll(async () => {
  await app.close();
  await Promise.all([github.close(), google.close(), slack.close(), jira.close()]);
});

describe("an end user connects each connector through the hosted pages", () => {
  test("GitHub: the account is stored with the GitHub user id and the granted scope", async () => {
    const account = await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
    expect(account).toMatchObject({ connector: "github", account: "alice", externalId: "583231", status: "ACTIVE", scopes: ["read:user"] });
    const request = github.authorizeRequests.at(-1)!;
    expect(request.get("code_challenge_method")).toBe("S256");
    expect(request.get("redirect_uri")).toBe(`${app.url}/oauth/callback`);
    expect(github.tokenRequests.at(-1)).toMatchObject({ clientAuth: "client_secret_post", grantType: "authorization_code" });
    expect(github.tokenRequests.at(-1)!.params.code_verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
  });

  test("Gmail: the mailbox address is the external id; offline access with PKCE was asked for", async () => {
    google.setIdentity({ email: "Alice@Example.com" });
    const account = await connectAccount(app, ada, { connector: "gmail", account: "alice", provider: google });
    expect(account).toMatchObject({ connector: "gmail", externalId: "alice@example.com", status: "ACTIVE", scopes: ["https://www.googleapis.com/auth/gmail.readonly"] });
    const request = google.authorizeRequests.at(-1)!;
    expect(request.get("access_type")).toBe("offline");
    expect(request.get("code_challenge")).toBeTruthy();
  });

  test("Slack: user scopes go in user_scope and the Slack user id is the external id", async () => {
    const account = await connectAccount(app, ada, { connector: "slack", account: "alice", provider: slack });
    expect(account).toMatchObject({ connector: "slack", externalId: "U2147483697", status: "ACTIVE" });
    expect(account.scopes).toContain("channels:history");
    const request = slack.authorizeRequests.at(-1)!;
    expect(request.get("user_scope")).toBe("channels:history,groups:history,im:history,mpim:history,reactions:read");
    expect(request.get("scope")).toBeNull();
  });

  test("Jira: the Atlassian account id is the external id; the audience was sent", async () => {
    const account = await connectAccount(app, ada, { connector: "jira", account: "alice", provider: jira });
    expect(account).toMatchObject({ connector: "jira", externalId: "5b10ac8d82e05b22cc7d4ef5", status: "ACTIVE" });
    expect(jira.authorizeRequests.at(-1)!.get("audience")).toBe("api.atlassian.com");
  });

  test("each page of the walk: connect page, consent page, provider, done page", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "bob");
    const walk = await walkConnectFlow(authUrl);
    const [start, afterContinue, consent, afterConsent] = walk.hops;
    expect(start.status).toBe(200);
    expect(start.contentType).toMatch(/^text\/html/);
    expect(start.body).toContain("GitHub");
    expect(start.body).toContain("bob");
    expect(start.body).toContain("Ada&#39;s org");
    expect(start.body).toMatch(/<button[^>]*>Continue<\/button>/);
    expect(start.body).toContain("<svg");
    expect(afterContinue.status).toBe(303);
    expect(afterContinue.location).toBe(`${authUrl}/consent`);
    expect(walk.consentShown).toBe(true);
    expect(consent.body).toContain("Read your GitHub profile");
    expect(consent.body).toContain("on behalf of <strong>Ada&#39;s org</strong>");
    expect(consent.body).toMatch(/>Continue<\/button>/);
    expect(consent.body).toMatch(/>Cancel<\/button>/);
    expect(afterConsent.status).toBe(303);
    expect(afterConsent.location!.startsWith(github.authorizeUrl)).toBe(true);
    expect(walk.final.status).toBe(200);
    expect(walk.final.body).toContain("Your GitHub account is connected");
    expect((await connectedAccounts(app, ada)).some((a) => a.connector === "github" && a.account === "bob")).toBe(true);
  });

  test("connecting the same account again updates it instead of adding a second one", async () => {
    github.setIdentity({ id: 9001, login: "alice-new" });
    const again = await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
    expect(again.externalId).toBe("9001");
    const alices = (await connectedAccounts(app, ada)).filter((a) => a.connector === "github" && a.account === "alice");
    expect(alices).toHaveLength(1);
    github.setIdentity({ id: 583231, login: "octocat" });
  });
});
