import { createHash } from "node:crypto";
import { checkedFetch as fetch } from "../helpers/openapi.ts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { requestAuthUrl } from "../helpers/connectFlow.ts";
import { startFakeGitHub, type FakeGitHub } from "../helpers/fakeProviders/index.ts";
import { createOperator, GenerateApiKey, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const SetCredentials = graphql(`
  mutation AuthUrlSetCredentials($deploymentId: ID!, $connector: String!, $input: ConnectorCredentialsInput!) {
    setConnectorCredentials(deploymentId: $deploymentId, connector: $connector, input: $input) { connector clientId clientSecretSet }
  }
`);

const DeleteCredentials = graphql(`
  mutation AuthUrlDeleteCredentials($deploymentId: ID!, $connector: String!) {
    deleteConnectorCredentials(deploymentId: $deploymentId, connector: $connector)
  }
`);

const ReauthorizationUrl = graphql(`
  mutation AuthUrlReauthorizationUrl($id: ID!) {
    createReauthorizationUrl(id: $id) { authUrl expiresAt }
  }
`);

let app: TestApp;
let github: FakeGitHub;
let ada: Operator;

beforeAll(async () => {
  github = await startFakeGitHub();
  // Only GitHub has service default credentials here; gmail has none at all.
  app = await startTestApp({ ...github.env(), CONNECT_URL_TTL_SECONDS: "600", RATE_LIMIT_PER_MINUTE: "25" });
  ada = await createOperator(app, "Ada");
});
afterAll(async () => {
  await app.close();
  await github.close();
});

async function problem(response: Response) {
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  return (await response.json()) as { type: string; title: string; status: number; detail: string; code: string; [member: string]: unknown };
}

describe("GET /api/v1/connector/service/:connector/auth-url", () => {
  test("200: a single-use URL on the public URL, for the connector and account, expiring after the TTL", async () => {
    const before = Date.now();
    const response = await requestAuthUrl(app, ada.apiKey, "github", "alice");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await response.json()) as { authUrl: string; connector: string; account: string; expiresAt: string };
    expect(Object.keys(body).sort()).toEqual(["account", "authUrl", "connector", "expiresAt"]);
    expect(body.connector).toBe("github");
    expect(body.account).toBe("alice");
    expect(body.authUrl).toMatch(new RegExp(`^${app.url}/connect/[A-Za-z0-9_-]{40,}$`));
    const expires = Date.parse(body.expiresAt);
    expect(new Date(expires).toISOString()).toBe(body.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);

    // Only the token's hash is stored.
    const token = body.authUrl.split("/connect/")[1];
    const sessions = await app.database.prisma.connectSession.findMany({ where: { deploymentId: ada.deploymentId } });
    expect(sessions.some((s) => s.tokenHash === createHash("sha256").update(token).digest("hex"))).toBe(true);
    expect(JSON.stringify(sessions)).not.toContain(token);
  });

  test("each call is a new URL; Content-Type: application/json is accepted and ignored", async () => {
    const headers = { "x-api-key": ada.apiKey, "content-type": "application/json" };
    const url = `${app.url}/api/v1/connector/service/github/auth-url?account=alice`;
    const [a, b] = await Promise.all([fetch(url, { headers }), fetch(url, { headers })]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(((await a.json()) as { authUrl: string }).authUrl).not.toBe(((await b.json()) as { authUrl: string }).authUrl);
  });

  test("any printable account up to 255 characters is accepted, unicode included", async () => {
    for (const account of ["a", "x".repeat(255), "élise+test@example.com", "用户 42", "a/b?c=d&e"]) {
      const response = await requestAuthUrl(app, ada.apiKey, "github", account);
      expect(response.status, account).toBe(200);
      expect(((await response.json()) as { account: string }).account).toBe(account);
    }
  });

  test("400 invalid_parameter: account missing, empty, longer than 255, or with control characters", async () => {
    const cases: Array<[string, string | undefined]> = [
      ["missing", undefined],
      ["empty", ""],
      ["256 characters", "x".repeat(256)],
      ["newline", "alice\nbob"],
      ["NUL", "alice\u0000"],
      ["tab", "\talice"],
      ["DEL", "alice\u007f"],
      ["C1 control", "alice\u0085"],
      ["bidi override U+202E", "alice\u202Egnp.exe"],
      ["bidi isolate U+2067", "\u2067alice"],
      ["zero-width space", "ali\u200Bce"],
      ["line separator U+2028", "alice\u2028bob"],
    ];
    for (const [what, account] of cases) {
      const response = await requestAuthUrl(app, ada.apiKey, "github", account);
      expect(response.status, what).toBe(400);
      const body = await problem(response);
      expect(body, what).toMatchObject({ status: 400, code: "invalid_parameter", title: "Bad Request" });
      expect(body.detail, what).toMatch(/account/);
    }
    const twice = await fetch(`${app.url}/api/v1/connector/service/github/auth-url?account=a&account=b`, { headers: { "x-api-key": ada.apiKey } });
    expect(twice.status).toBe(400);
    expect((await problem(twice)).code).toBe("invalid_parameter");
  });

  test("401 missing_api_key and invalid_api_key (wrong or revoked key)", async () => {
    const missing = await requestAuthUrl(app, undefined, "github", "alice");
    expect(missing.status).toBe(401);
    expect((await problem(missing)).code).toBe("missing_api_key");

    const wrong = await requestAuthUrl(app, "sy_live_" + "A".repeat(43), "github", "alice");
    expect(wrong.status).toBe(401);
    expect((await problem(wrong)).code).toBe("invalid_api_key");

    const bob = await createOperator(app, "Bob");
    ok(await app.gql(GenerateApiKey, { deploymentId: bob.deploymentId }, { token: bob.token }));
    const revoked = await requestAuthUrl(app, bob.apiKey, "github", "alice");
    expect(revoked.status).toBe(401);
    expect((await problem(revoked)).code).toBe("invalid_api_key");
  });

  test("404 unknown_connector, names being exact and lower-case", async () => {
    for (const name of ["no-such-service", "GitHub", "git hub", "github2"]) {
      const response = await requestAuthUrl(app, ada.apiKey, name, "alice");
      expect(response.status, name).toBe(404);
      const body = await problem(response);
      expect(body.code).toBe("unknown_connector");
    }
  });

  test("409 connector_not_configured, naming the variables and the console page, until the deployment or the service has an OAuth app", async () => {
    const gina = await createOperator(app, "Gina");
    const response = await requestAuthUrl(app, gina.apiKey, "gmail", "alice");
    expect(response.status).toBe(409);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const body = await problem(response);
    expect(body).toMatchObject({
      status: 409,
      code: "connector_not_configured",
      connector: "gmail",
      variables: ["CONNECTOR_GMAIL_CLIENT_ID", "CONNECTOR_GMAIL_CLIENT_SECRET"],
      consolePage: "Settings → Connectors",
    });
    expect(body.detail).toContain("CONNECTOR_GMAIL_CLIENT_ID and CONNECTOR_GMAIL_CLIENT_SECRET");
    expect(body.detail).toContain("Settings → Connectors");
    // Nothing was created for the end user.
    expect(await app.database.prisma.connectSession.count({ where: { deploymentId: gina.deploymentId, connector: "gmail" } })).toBe(0);

    ok(await app.gql(SetCredentials, { deploymentId: gina.deploymentId, connector: "gmail", input: { clientId: "ada-google-app", clientSecret: "ada-google-secret" } }, { token: gina.token }));
    const again = await requestAuthUrl(app, gina.apiKey, "gmail", "alice");
    expect(again.status).toBe(200);
    const { authUrl } = (await again.json()) as { authUrl: string };
    const page = await fetch(authUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Continue");
    // Another deployment still has nothing configured; the service-configured GitHub works for it.
    const eve = await createOperator(app, "Eve");
    expect((await requestAuthUrl(app, eve.apiKey, "gmail", "alice")).status).toBe(409);
    expect((await requestAuthUrl(app, eve.apiKey, "github", "alice")).status).toBe(200);
  });

  test("createReauthorizationUrl refuses as auth-url does while the connection's connector has no OAuth app", async () => {
    const hana = await createOperator(app, "Hana");
    ok(await app.gql(SetCredentials, { deploymentId: hana.deploymentId, connector: "gmail", input: { clientId: "hana-google-app", clientSecret: "hana-google-secret" } }, { token: hana.token }));
    // A Gmail connection made while the deployment had its own Google app.
    const connection = await app.database.prisma.connectedAccount.create({
      data: { deploymentId: hana.deploymentId, connector: "gmail", account: "alice", externalId: "alice@example.com", accessTokenEncrypted: app.app.box.seal("ya29.old"), scopes: [], status: "REAUTH_REQUIRED" },
    });
    const made = ok(await app.gql(ReauthorizationUrl, { id: connection.id }, { token: hana.token }));
    expect(made.createReauthorizationUrl.authUrl).toMatch(/\/connect\/[A-Za-z0-9_-]{20,}$/);

    // The app is removed: no new link the end user would find broken, and the same words as auth-url's 409.
    ok(await app.gql(DeleteCredentials, { deploymentId: hana.deploymentId, connector: "gmail" }, { token: hana.token }));
    const sessions = await app.database.prisma.connectSession.count({ where: { deploymentId: hana.deploymentId } });
    const refused = await app.gql(ReauthorizationUrl, { id: connection.id }, { token: hana.token });
    expect(refused.data?.createReauthorizationUrl ?? null).toBeNull();
    const rest = await problem(await requestAuthUrl(app, hana.apiKey, "gmail", "alice"));
    expect(rest.code).toBe("connector_not_configured");
    expect(refused.errors).toMatchObject([{ message: rest.detail, extensions: { code: "CONFLICT" } }]);
    expect(await app.database.prisma.connectSession.count({ where: { deploymentId: hana.deploymentId } })).toBe(sessions);
  });

  test("the session belongs to the key's deployment", async () => {
    const eve = await createOperator(app, "Eve2");
    const response = await requestAuthUrl(app, eve.apiKey, "github", "same-name");
    const { authUrl } = (await response.json()) as { authUrl: string };
    const token = authUrl.split("/connect/")[1];
    const session = await app.database.prisma.connectSession.findUnique({ where: { tokenHash: createHash("sha256").update(token).digest("hex") } });
    expect(session?.deploymentId).toBe(eve.deploymentId);
  });

  test("429 rate_limited with Retry-After once the key's budget is spent", async () => {
    const busy = await createOperator(app, "Busy");
    let limited: Response | undefined;
    for (let i = 0; i < 30 && !limited; i++) {
      const response = await requestAuthUrl(app, busy.apiKey, "github", `user-${i}`);
      if (response.status === 429) limited = response;
      else expect(response.status).toBe(200);
    }
    expect(limited).toBeDefined();
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await problem(limited!)).code).toBe("rate_limited");
    // Another deployment's key is not affected (a fresh one: earlier tests spent some of ada's budget).
    const calm = await createOperator(app, "Calm");
    expect((await requestAuthUrl(app, calm.apiKey, "github", "alice")).status).toBe(200);
  });
});
