import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount, connectedAccounts, CookieJar, formIn, getAuthUrl, hop, walkConnectFlow } from "../helpers/connectFlow.ts";
import { startFakeGitHub, type FakeGitHub } from "../helpers/fakeProviders/index.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeClock } from "../helpers/clock.ts";
import { createConnectSession } from "../../src/connect/sessions.ts";

let app: TestApp;
let github: FakeGitHub;
let ada: Operator;
// Stands still from the real time on; the expired-link test moves it past the links' lifetime.
const clock = fakeClock(new Date());

beforeAll(async () => {
  github = await startFakeGitHub();
  app = await startTestApp(github.env(), { clock });
  ada = await createOperator(app, "Ada");
});
afterAll(async () => {
  await app.close();
  await github.close();
});

const stored = async (account: string) => (await connectedAccounts(app, ada)).filter((a) => a.account === account);

function expectErrorPage(page: { status: number; contentType: string | null; body: string }, status: number, heading: RegExp) {
  expect(page.status).toBe(status);
  expect(page.contentType).toMatch(/^text\/html/);
  expect(page.body).toMatch(/<h1>[^<]*<\/h1>/);
  expect(/<h1>([^<]*)<\/h1>/.exec(page.body)![1]).toMatch(heading);
  expect(page.body).not.toMatch(/at .*\.ts:\d+|stack|prisma/i);
}

describe("the connect flow's error pages, each storing nothing", () => {
  test("an unknown or mangled link: 404", async () => {
    expectErrorPage(await hop("GET", `${app.url}/connect/${"x".repeat(43)}`), 404, /not valid/);
    expectErrorPage(await hop("GET", `${app.url}/connect/short`), 404, /not valid/);
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "mangled");
    expectErrorPage(await hop("GET", authUrl.slice(0, -3)), 404, /not valid/);
  });

  test("an expired link: 410 on the page, on Continue and on the callback", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "late");
    const start = await hop("GET", authUrl);
    expect(start.status).toBe(200);
    const walk = await walkConnectFlow(authUrl, { stopAtProvider: true });
    const authorize = await hop("GET", walk.providerAuthorizeUrl!);
    const approved = await hop("POST", formIn(authorize).action, { ...formIn(authorize).fields, decision: "approve" });
    // Time passes beyond the link's lifetime while the user is at the provider.
    clock.advance(app.app.config.connectUrlTtlSeconds * 1000);
    expectErrorPage(await hop("GET", approved.location!, undefined, {}, walk.jar), 410, /expired/);
    expectErrorPage(await hop("GET", authUrl), 410, /expired/);
    const form = formIn(start);
    expectErrorPage(await hop("POST", form.action, form.fields), 410, /expired/);
    expect(await stored("late")).toEqual([]);
  });

  test("a used link: 410 afterwards, and the callback cannot be replayed", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "once");
    const walk = await walkConnectFlow(authUrl);
    expect(walk.final.status).toBe(200);
    expectErrorPage(await hop("GET", authUrl), 410, /already used/);
    expectErrorPage(await hop("GET", `${authUrl}/consent`), 410, /already used/);
    expectErrorPage(await hop("GET", walk.callbackUrl!), 400, /could not be verified/);
    expect(await stored("once")).toHaveLength(1);
  });

  test("a tampered or missing state: 400, and the real flow still works afterwards", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "tampered");
    const walk = await walkConnectFlow(authUrl, { stopAtProvider: true });
    const authorize = await hop("GET", walk.providerAuthorizeUrl!);
    const approved = await hop("POST", formIn(authorize).action, { ...formIn(authorize).fields, decision: "approve" });
    const callback = new URL(approved.location!);
    const forged = new URL(callback);
    forged.searchParams.set("state", callback.searchParams.get("state")!.slice(0, -2) + "xx");
    expectErrorPage(await hop("GET", forged.toString()), 400, /could not be verified/);
    const noState = new URL(callback);
    noState.searchParams.delete("state");
    expectErrorPage(await hop("GET", noState.toString()), 400, /could not be verified/);
    expectErrorPage(await hop("GET", `${app.url}/oauth/callback`), 400, /could not be verified/);
    expect(await stored("tampered")).toEqual([]);
    // The genuine callback was not spent by the forgeries.
    expect((await hop("GET", callback.toString(), undefined, {}, walk.jar)).status).toBe(200);
    expect(await stored("tampered")).toHaveLength(1);
  });

  test("a provider URL opened in another browser (no binding cookie, or another attempt's): 403, nothing stored, and the real browser still finishes", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "handed-over");
    // The attacker starts the flow and hands the victim the provider's authorize URL, skipping our pages.
    const attacker = await walkConnectFlow(authUrl, { stopAtProvider: true });
    const authorize = await hop("GET", attacker.providerAuthorizeUrl!);
    const approved = await hop("POST", formIn(authorize).action, { ...formIn(authorize).fields, decision: "approve" });
    const victimLanding = await hop("GET", approved.location!, undefined, {}, new CookieJar());
    expectErrorPage(victimLanding, 403, /started in another browser/);
    expect(victimLanding.body).toContain("Start again from the authorization link");
    expect(await stored("handed-over")).toEqual([]);

    // A cookie from another attempt (the same session restarted elsewhere) does not fit either.
    const [name] = attacker.jar.header(approved.location!)!.split("=");
    expectErrorPage(await hop("GET", approved.location!, undefined, { cookie: `${name}=${"A".repeat(43)}` }), 403, /another browser/);
    expect(await stored("handed-over")).toEqual([]);

    // The attempt was not spent by the refusals: the browser that pressed Continue completes it.
    const done = await hop("GET", approved.location!, undefined, {}, attacker.jar);
    expect(done.status).toBe(200);
    expect(attacker.jar.header(approved.location!)).toBeUndefined();
    expect(await stored("handed-over")).toHaveLength(1);
  });

  test("the binding cookie is HttpOnly, SameSite=Lax, short-lived and scoped to the callback", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "cookie-attributes");
    const start = await hop("GET", authUrl);
    const form = formIn(start);
    const consent = await hop("GET", (await hop("POST", form.action, form.fields)).location!);
    const response = await fetch(formIn(consent).action, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...formIn(consent).fields, decision: "continue" }).toString(),
    });
    expect(response.status).toBe(303);
    const [cookie] = response.headers.getSetCookie();
    expect(cookie).toMatch(/^sy_connect_[A-Za-z0-9]+=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain("; Path=/oauth/callback");
    expect(cookie).toContain("; HttpOnly");
    expect(cookie).toContain("; SameSite=Lax");
    const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)![1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(30 * 60);
  });

  test("invisible characters stored before they were refused are shown escaped, never obeyed", async () => {
    // auth-url refuses them now (authUrl.test.ts); a session from before that still renders safely.
    const { authUrl } = await createConnectSession({ config: app.app.config, db: app.database.prisma, box: app.app.box, logger: app.app.logger, clock }, ada.deploymentId, "github", "alice\u202Egnp.exe\u200B");
    const start = await hop("GET", authUrl);
    expect(start.status).toBe(200);
    expect(start.body).toContain("alice\\u202Egnp.exe\\u200B");
    expect(start.body).not.toMatch(/[\u202E\u200B]/);
  });

  test("Cancel on the consent page: a confirmation, then the link is dead (410)", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "cancels");
    const providerVisits = github.authorizeRequests.length;
    const walk = await walkConnectFlow(authUrl, { consent: "cancel" });
    expect(walk.consentShown).toBe(true);
    expect(walk.final.status).toBe(200);
    expect(walk.final.body).toContain("Connection cancelled");
    expect(walk.final.body).toContain("Nothing was shared");
    expectErrorPage(await hop("GET", authUrl), 410, /cancelled/);
    expect(await stored("cancels")).toEqual([]);
    expect(github.authorizeRequests.length).toBe(providerVisits);
  });

  test("Deny at the provider (error=access_denied): 403, nothing stored, and the same link can be tried again", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "denies");
    const walk = await walkConnectFlow(authUrl, { decision: "deny" });
    expect(new URL(walk.callbackUrl!).searchParams.get("error")).toBe("access_denied");
    expectErrorPage(walk.final, 403, /not allowed/);
    expect(walk.final.body).toContain("You declined access at GitHub");
    expect(await stored("denies")).toEqual([]);
    const retry = await walkConnectFlow(authUrl);
    expect(retry.final.status).toBe(200);
    expect(await stored("denies")).toHaveLength(1);
  });

  test("the token endpoint failing: 502, nothing stored; a code the provider refuses: 400", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "unlucky");
    github.failTokenEndpoint(true);
    try {
      const walk = await walkConnectFlow(authUrl);
      expectErrorPage(walk.final, 502, /did not answer/);
    } finally {
      github.failTokenEndpoint(false);
    }
    expect(await stored("unlucky")).toEqual([]);

    const walk = await walkConnectFlow(authUrl, { stopAtProvider: true });
    const authorize = await hop("GET", walk.providerAuthorizeUrl!);
    const approved = await hop("POST", formIn(authorize).action, { ...formIn(authorize).fields, decision: "approve" });
    const badCode = new URL(approved.location!);
    badCode.searchParams.set("code", "not-a-code-the-provider-issued");
    expectErrorPage(await hop("GET", badCode.toString(), undefined, {}, walk.jar), 400, /refused/);
    expect(await stored("unlucky")).toEqual([]);
  });

  test("forms must come from our page: a wrong nonce or a foreign Origin is 403, another body type 415", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "csrf");
    const form = formIn(await hop("GET", authUrl));
    expectErrorPage(await hop("POST", form.action, { nonce: "forged" }), 403, /refused/);
    expectErrorPage(await hop("POST", form.action, {}), 403, /refused/);
    expectErrorPage(await hop("POST", form.action, form.fields, { origin: "https://evil.example" }), 403, /refused/);
    const json = await fetch(form.action, { method: "POST", redirect: "manual", headers: { "content-type": "application/json" }, body: JSON.stringify(form.fields) });
    expect(json.status).toBe(415);
    // A nonce from another session does not work either.
    const otherForm = formIn(await hop("GET", await getAuthUrl(app, ada.apiKey, "github", "csrf-other")));
    expectErrorPage(await hop("POST", form.action, otherForm.fields), 403, /refused/);
    // The consent form's nonce is not the start form's.
    const toConsent = await hop("POST", form.action, form.fields);
    expect(toConsent.status).toBe(303);
    expectErrorPage(await hop("POST", toConsent.location!, { ...form.fields, decision: "continue" }), 403, /refused/);
    expect(await stored("csrf")).toEqual([]);
  });

  test("what the end user sees is escaped", async () => {
    const account = `<script>alert("x")</script>`;
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", account);
    const page = await hop("GET", authUrl);
    expect(page.body).not.toContain("<script>");
    expect(page.body).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  });

  test("pages carry no-store, a strict CSP and no referrer", async () => {
    const authUrl = await getAuthUrl(app, ada.apiKey, "github", "headers");
    const response = await fetch(authUrl);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
  });

  test("a flow that ends well after all of that still connects", async () => {
    const account = await connectAccount(app, ada, { connector: "github", account: "happy", provider: github });
    expect(account.status).toBe("ACTIVE");
  });
});
