/**
 * Each fake provider, driven the way Switchyard drives the real one: build the authorize URL from
 * the connector's OAuth spec and the fake's env overrides, press Approve on its page, exchange the
 * code at its token endpoint, normalize with readTokenResponse, and read the identity — all over
 * real HTTP with fetch.
 */
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findConnector, resolveEndpoints } from "../../src/connectors/registry.ts";
import type { ConnectorDefinition, InboundRequest, JsonWebKeySet, NormalizedToken, ProviderEndpoints } from "../../src/connectors/types.ts";
import { TokenResponseError } from "../../src/connectors/tokenResponse.ts";
import {
  githubIssuesPayload,
  githubWebhook,
  jiraIssuePayload,
  jiraWebhook,
  slackEvent,
  slackMessageEvent,
  startFakeGitHub,
  startFakeGoogle,
  startFakeJira,
  startFakeSlack,
  type FakeOAuthServer,
  type SignedRequest,
} from "../helpers/fakeProviders/index.ts";

const REDIRECT_URI = "http://127.0.0.1:4000/oauth/callback";

interface Fake extends FakeOAuthServer<unknown> {
  env(): Record<string, string>;
}

/** The minimum of an OAuth client, written from the connector's data only (no branching on its name). */
class TestClient {
  readonly endpoints: ProviderEndpoints;
  verifier = randomBytes(32).toString("base64url");
  state = randomBytes(16).toString("base64url");

  constructor(
    readonly def: ConnectorDefinition,
    readonly fake: Fake,
  ) {
    this.endpoints = resolveEndpoints(def, fake.env());
  }

  authorizeUrl(): string {
    const { oauth } = this.def;
    const url = new URL(this.endpoints.authorizeUrl);
    url.searchParams.set("client_id", this.fake.clientId);
    url.searchParams.set("redirect_uri", REDIRECT_URI);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("state", this.state);
    url.searchParams.set(oauth.scopeParam ?? "scope", oauth.scopes.join(oauth.scopeSeparator));
    for (const [k, v] of Object.entries(oauth.extraAuthorizeParams ?? {})) url.searchParams.set(k, v);
    if (oauth.pkce) {
      url.searchParams.set("code_challenge", createHash("sha256").update(this.verifier).digest("base64url"));
      url.searchParams.set("code_challenge_method", "S256");
    }
    return url.toString();
  }

  /** Opens the authorize page and presses a button; returns the redirect back to us. */
  async consent(decision: "approve" | "deny" = "approve"): Promise<URL> {
    const page = await fetch(this.authorizeUrl(), { redirect: "manual" });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(">Approve</button>");
    expect(html).toContain(">Deny</button>");
    const action = /<form method="post" action="([^"]+)"/.exec(html)![1];
    const requestId = /name="request_id" value="([^"]+)"/.exec(html)![1];
    const answer = await fetch(new URL(action, this.endpoints.authorizeUrl), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ request_id: requestId, decision }),
      redirect: "manual",
    });
    expect(answer.status).toBe(302);
    return new URL(answer.headers.get("location")!);
  }

  async tokenRequest(params: Record<string, string>, auth = this.def.oauth.clientAuth): Promise<{ status: number; body: Record<string, unknown> }> {
    const body = new URLSearchParams(params);
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
    if (auth === "client_secret_post") {
      body.set("client_id", this.fake.clientId);
      body.set("client_secret", this.fake.clientSecret);
    } else {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(this.fake.clientId)}:${encodeURIComponent(this.fake.clientSecret)}`).toString("base64")}`;
    }
    const res = await fetch(this.endpoints.tokenUrl, { method: "POST", headers, body });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  exchange(code: string, verifier = this.verifier) {
    return this.tokenRequest({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT_URI,
      ...(this.def.oauth.pkce ? { code_verifier: verifier } : {}),
    });
  }

  fetchJson(accessToken: string) {
    return async (path: string) => {
      const res = await fetch(`${this.endpoints.apiUrl}${path}`, { headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" } });
      if (!res.ok) throw Object.assign(new Error(`GET ${path} answered ${res.status}`), { status: res.status });
      return res.json();
    };
  }

  /** The whole happy path; returns the normalized token and identity. */
  async connect() {
    const back = await this.consent("approve");
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get("state")).toBe(this.state);
    const answer = await this.exchange(back.searchParams.get("code")!);
    expect(answer.status).toBe(200);
    const token = this.def.oauth.readTokenResponse(answer.body);
    const identity = await this.def.readIdentity({
      now: new Date(),
      accessToken: token.accessToken,
      token: token.raw,
      fetchJson: this.fetchJson(token.accessToken),
      apiUrl: this.endpoints.apiUrl,
    });
    return { token, identity, code: back.searchParams.get("code")! };
  }
}

function inbound(signed: SignedRequest): InboundRequest {
  return { headers: signed.headers, rawBody: Buffer.from(signed.body) };
}

describe("fake GitHub", () => {
  let fake: Awaited<ReturnType<typeof startFakeGitHub>>;
  let client: TestClient;
  beforeAll(async () => {
    fake = await startFakeGitHub({ user: { id: 1001, login: "alice" }, redirectUris: [REDIRECT_URI] });
    client = new TestClient(findConnector("github")!, fake);
  });
  afterAll(() => fake.close());

  it("connects: Approve, PKCE code exchange, GET /user", async () => {
    const { token, identity } = await client.connect();
    expect(token.scopes).toEqual(["read:user"]);
    expect(token.expiresIn).toBeUndefined();
    expect(identity).toMatchObject({ externalId: "1001", displayName: "alice" });
    const authorize = fake.authorizeRequests.at(-1)!;
    expect(authorize.get("code_challenge_method")).toBe("S256");
  });

  it("answers form-encoded unless JSON is asked for, and errors with HTTP 200", async () => {
    const res = await fetch(fake.tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: fake.clientId, client_secret: fake.clientSecret, code: "nope" }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/x-www-form-urlencoded");
    expect(new URLSearchParams(await res.text()).get("error")).toBe("bad_verification_code");
  });

  it("refuses a wrong PKCE verifier, a reused code and a wrong client secret", async () => {
    client.verifier = randomBytes(32).toString("base64url");
    const back = await client.consent();
    const code = back.searchParams.get("code")!;
    const wrong = await client.exchange(code, randomBytes(32).toString("base64url"));
    expect(wrong.body.error).toBe("bad_verification_code");
    expect((await client.exchange(code)).status).toBe(200);
    expect((await client.exchange(code)).body.error).toBe("bad_verification_code");

    const res = await fetch(fake.tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ client_id: fake.clientId, client_secret: "wrong", code }),
    });
    expect(((await res.json()) as { error: string }).error).toBe("incorrect_client_credentials");
  });

  it("redirects with error=access_denied on Deny, and shows an error page for an unknown redirect_uri", async () => {
    const back = await client.consent("deny");
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe(client.state);
    expect(back.searchParams.get("code")).toBeNull();

    const url = new URL(client.authorizeUrl());
    url.searchParams.set("redirect_uri", "https://evil.example.com/cb");
    const res = await fetch(url, { redirect: "manual" });
    expect(res.status).toBe(400);
  });

  it("auto-approves when asked to", async () => {
    fake.setAutoApprove(true);
    try {
      const res = await fetch(client.authorizeUrl(), { redirect: "manual" });
      expect(res.status).toBe(302);
      expect(new URL(res.headers.get("location")!).searchParams.get("code")).toBeTruthy();
    } finally {
      fake.setAutoApprove(false);
    }
  });

  it("signs webhooks the connector verifies", () => {
    const signed = githubWebhook("issues", githubIssuesPayload("opened", { sender: { id: 1001, login: "alice" } }), fake.webhookSecret);
    const def = findConnector("github")!;
    expect(def.inbound.verify(inbound(signed), fake.webhookSecret, new Date())).toEqual({ ok: true });
  });
});

describe("fake GitHub with expiring tokens", () => {
  it("refreshes with rotation and answers bad_refresh_token when told to", async () => {
    const fake = await startFakeGitHub({ expiringTokens: true });
    try {
      const client = new TestClient(findConnector("github")!, fake);
      const { token } = await client.connect();
      expect(token).toMatchObject({ expiresIn: 28800, refreshToken: expect.any(String) });
      const refreshed = client.def.oauth.readTokenResponse((await client.tokenRequest({ grant_type: "refresh_token", refresh_token: token.refreshToken! })).body);
      expect(refreshed.refreshToken).not.toBe(token.refreshToken);
      // the rotated-away refresh token is dead
      const reused = await client.tokenRequest({ grant_type: "refresh_token", refresh_token: token.refreshToken! });
      expect(() => client.def.oauth.readTokenResponse(reused.body)).toThrow(TokenResponseError);

      fake.rejectRefreshTokens();
      const rejected = await client.tokenRequest({ grant_type: "refresh_token", refresh_token: refreshed.refreshToken! });
      expect(rejected.body.error).toBe("bad_refresh_token");
    } finally {
      await fake.close();
    }
  });
});

describe("fake Google (Gmail)", () => {
  let fake: Awaited<ReturnType<typeof startFakeGoogle>>;
  let client: TestClient;
  beforeAll(async () => {
    fake = await startFakeGoogle({ identity: { email: "Alice@Example.com" } });
    client = new TestClient(findConnector("gmail")!, fake);
  });
  afterAll(() => fake.close());

  it("connects with offline access and reads the profile", async () => {
    const { token, identity } = await client.connect();
    expect(token).toMatchObject({ expiresIn: 3599, refreshToken: expect.any(String), scopes: ["https://www.googleapis.com/auth/gmail.readonly"] });
    expect(identity).toMatchObject({ externalId: "alice@example.com", cursor: fake.historyId() });
    const authorize = fake.authorizeRequests.at(-1)!;
    expect(authorize.get("access_type")).toBe("offline");
    expect(authorize.get("prompt")).toBe("consent");
  });

  it("refreshes without resending the refresh token, then answers invalid_grant when told to", async () => {
    const { token } = await client.connect();
    const refreshed = client.def.oauth.readTokenResponse((await client.tokenRequest({ grant_type: "refresh_token", refresh_token: token.refreshToken! })).body);
    expect(refreshed.refreshToken).toBeUndefined();
    expect(refreshed.accessToken).not.toBe(token.accessToken);

    fake.rejectRefreshTokens();
    try {
      const rejected = await client.tokenRequest({ grant_type: "refresh_token", refresh_token: token.refreshToken! });
      expect(rejected).toEqual({ status: 400, body: { error: "invalid_grant", error_description: "Token has been expired or revoked." } });
    } finally {
      fake.rejectRefreshTokens(false);
    }
  });

  it("expired access tokens get 401 from the API; a failing token endpoint answers 500", async () => {
    const { token } = await client.connect();
    fake.expireAccessTokens();
    await expect(client.fetchJson(token.accessToken)("/gmail/v1/users/me/profile")).rejects.toMatchObject({ status: 401 });

    fake.failTokenEndpoint();
    try {
      const res = await fetch(fake.tokenUrl, { method: "POST", body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: token.refreshToken! }) });
      expect(res.status).toBe(500);
    } finally {
      fake.failTokenEndpoint(false);
    }
  });

  it("requires redirect_uri and the PKCE verifier in the exchange", async () => {
    const back = await client.consent();
    const code = back.searchParams.get("code")!;
    const noVerifier = await client.tokenRequest({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI });
    expect(noVerifier).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    const noRedirect = await client.tokenRequest({ grant_type: "authorization_code", code, code_verifier: client.verifier });
    expect(noRedirect).toMatchObject({ status: 400, body: { error: "redirect_uri_mismatch" } });
  });

  it("turns a signed push into email events: verify with the served JWKS, parse, fetch history", async () => {
    const def = client.def;
    const { token, identity } = await client.connect();
    const cursor = identity.cursor!;
    const received = fake.receiveEmail({ subject: "Quarterly report", from: "Bob <bob@example.org>" });
    fake.sendEmail({ subject: "Re: Quarterly report" });

    const jwks = (await (await fetch(client.endpoints.jwksUrl!)).json()) as JsonWebKeySet;
    const req = inbound(fake.push());
    expect(def.inbound.verify(req, fake.env().CONNECTOR_GMAIL_WEBHOOK_SECRET, new Date(), { jwks })).toEqual({ ok: true });
    expect(def.inbound.verify(req, "some-other-audience", new Date(), { jwks }).ok).toBe(false);

    const parsed = def.inbound.parse(req);
    expect(parsed.kind === "events" && parsed.sync).toMatchObject({ externalIds: ["alice@example.com"], cursor: fake.historyId() });
    if (parsed.kind !== "events" || !parsed.sync) return;

    const result = await def.declaration.changes!.read({
      now: new Date(),
      fetchJson: client.fetchJson(token.accessToken),
      externalId: identity.externalId,
      resource: "",
      cursor,
      headers: {},
      item: {},
      notification: parsed.sync,
      providerId: "",
      triggersFor: () => [],
    });
    expect(result.cursor).toBe(fake.historyId());
    expect(result.events.map((e) => [e.trigger, e.data.subject])).toEqual([
      ["email_received", "Quarterly report"],
      ["email_sent", "Re: Quarterly report"],
    ]);
    expect(result.events[0]).toMatchObject({ dedupeKey: `${received.id}:email_received`, data: { from: "Bob <bob@example.org>" } });
  });

  it("rotating the signing key makes a cached JWKS ask for a refresh", async () => {
    const def = client.def;
    const cached = (await (await fetch(fake.jwksUrl)).json()) as JsonWebKeySet;
    fake.rotateSigningKey();
    const req = inbound(fake.push());
    expect(def.inbound.verify(req, fake.pushAudience, new Date(), { jwks: cached })).toMatchObject({ ok: false, refreshKeys: true });
    const fresh = (await (await fetch(fake.jwksUrl)).json()) as JsonWebKeySet;
    expect(def.inbound.verify(req, fake.pushAudience, new Date(), { jwks: fresh })).toEqual({ ok: true });
  });

  it("serves users.watch", async () => {
    const { token } = await client.connect();
    const res = await fetch(`${fake.apiUrl}/gmail/v1/users/me/watch`, {
      method: "POST",
      headers: { authorization: `Bearer ${token.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ topicName: "projects/switchyard-test/topics/gmail", labelIds: ["INBOX", "SENT"] }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ historyId: fake.historyId(), expiration: expect.any(String) });
    expect(fake.watchRequests.at(-1)?.body.topicName).toBe("projects/switchyard-test/topics/gmail");
  });
});

describe("fake Atlassian (Jira)", () => {
  let fake: Awaited<ReturnType<typeof startFakeJira>>;
  let client: TestClient;
  beforeAll(async () => {
    fake = await startFakeJira({ identity: { accountId: "acc-42", name: "Alice Example" } });
    client = new TestClient(findConnector("jira")!, fake);
  });
  afterAll(() => fake.close());

  it("connects: audience + consent, code exchange, accessible-resources then /me", async () => {
    const { token, identity } = await client.connect();
    expect(token).toMatchObject({ expiresIn: 3600, refreshToken: expect.any(String) });
    expect(identity).toMatchObject({ externalId: "acc-42", displayName: "Alice Example", metadata: { sites: [{ url: "https://example.atlassian.net" }] } });
    expect(fake.authorizeRequests.at(-1)!.get("audience")).toBe("api.atlassian.com");
  });

  it("accepts Atlassian's documented JSON token request", async () => {
    const back = await client.consent();
    const res = await fetch(fake.tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        grant_type: "authorization_code",
        client_id: fake.clientId,
        client_secret: fake.clientSecret,
        code: back.searchParams.get("code"),
        redirect_uri: REDIRECT_URI,
      }),
    });
    expect(res.status).toBe(200);
    expect(fake.tokenRequests.at(-1)?.contentType).toBe("application/json");
  });

  it("rotates refresh tokens and answers 403 invalid_grant for a bad one", async () => {
    const { token } = await client.connect();
    const refreshed = client.def.oauth.readTokenResponse((await client.tokenRequest({ grant_type: "refresh_token", refresh_token: token.refreshToken! })).body);
    expect(refreshed.refreshToken).toBeTruthy();
    expect(refreshed.refreshToken).not.toBe(token.refreshToken);
    const stale = await client.tokenRequest({ grant_type: "refresh_token", refresh_token: token.refreshToken! });
    expect(stale).toMatchObject({ status: 403, body: { error: "invalid_grant" } });
  });

  it("refuses an authorize request without the audience", async () => {
    const url = new URL(client.authorizeUrl());
    url.searchParams.delete("audience");
    expect((await fetch(url, { redirect: "manual" })).status).toBe(400);
  });

  it("signs webhooks the connector verifies", () => {
    const signed = jiraWebhook(jiraIssuePayload("jira:issue_created", { accountId: "acc-42" }), fake.webhookSecret);
    expect(client.def.inbound.verify(inbound(signed), fake.webhookSecret, new Date())).toEqual({ ok: true });
  });
});

describe("fake Slack", () => {
  let fake: Awaited<ReturnType<typeof startFakeSlack>>;
  let client: TestClient;
  beforeAll(async () => {
    fake = await startFakeSlack({ identity: { userId: "U111", teamId: "T222", teamName: "Acme" } });
    client = new TestClient(findConnector("slack")!, fake);
  });
  afterAll(() => fake.close());

  it("connects with user_scope; the user token and identity come from authed_user", async () => {
    const { token, identity } = await client.connect();
    expect(token.scopes).toEqual(client.def.oauth.scopes);
    expect(identity).toMatchObject({ externalId: "U111", metadata: { teamId: "T222", teamName: "Acme" } });
    const authorize = fake.authorizeRequests.at(-1)!;
    expect(authorize.get("user_scope")).toBe(client.def.oauth.scopes.join(","));
    expect(authorize.get("scope")).toBeNull();
    const me = await client.fetchJson(token.accessToken)("/auth.test");
    expect(me).toMatchObject({ ok: true, user_id: "U111", team_id: "T222" });
  });

  it("answers errors as HTTP 200 ok:false", async () => {
    const answer = await client.exchange("not-a-code");
    expect(answer).toEqual({ status: 200, body: { ok: false, error: "invalid_code" } });
    expect(() => client.def.oauth.readTokenResponse(answer.body)).toThrow(TokenResponseError);
  });

  it("signs events the connector verifies", () => {
    const signed = slackEvent(slackMessageEvent({ userId: "U111" }), fake.signingSecret);
    expect(client.def.inbound.verify(inbound(signed), fake.signingSecret, new Date())).toEqual({ ok: true });
  });
});

describe("fake Slack with token rotation", () => {
  it("refreshes to a new top-level token", async () => {
    const fake = await startFakeSlack({ tokenRotation: true });
    try {
      const client = new TestClient(findConnector("slack")!, fake);
      const { token } = await client.connect();
      expect(token).toMatchObject({ expiresIn: 43200, refreshToken: expect.any(String) });
      const answer = await client.tokenRequest({ grant_type: "refresh_token", refresh_token: token.refreshToken! });
      const refreshed: NormalizedToken = client.def.oauth.readTokenResponse(answer.body);
      expect(refreshed.accessToken).not.toBe(token.accessToken);
      expect(await client.fetchJson(refreshed.accessToken)("/auth.test")).toMatchObject({ ok: true });
      const stale = await client.tokenRequest({ grant_type: "refresh_token", refresh_token: token.refreshToken! });
      expect(stale.body).toEqual({ ok: false, error: "invalid_refresh_token" });
    } finally {
      await fake.close();
    }
  });
});
