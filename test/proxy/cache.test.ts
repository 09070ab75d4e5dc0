import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { VERIFIED_KEY_TTL_MS } from "../../src/auth/apiKeys.ts";
import { CONNECTION_IN_USE_TTL_MS } from "../../src/connections/token.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fakeProviders/github.ts";
import { createOperator, GenerateApiKey, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { type FakeGitHubApi, startFakeGitHubApi } from "./fakeGitHubApi.ts";
import { raw } from "./helpers.ts";

// The proxy reuses a connection row it read for up to a second; what changes on this instance is seen at once.
const clock = fakeClock(new Date());
let github: FakeGitHub;
let api: FakeGitHubApi;
let app: TestApp;
let ada: Operator;

beforeAll(async () => {
  github = await startFakeGitHub({ autoApprove: true });
  api = await startFakeGitHubApi(github);
  app = await startTestApp({ ...github.env(), CONNECTOR_GITHUB_API_URL: api.url }, { clock });
  ada = await createOperator(app, "Ada");
  await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await api?.close();
  await github?.close();
});

const proxied = async (account: string, apiKey = ada.apiKey) => {
  const response = await raw(`${app.url}/api/v1/proxy/github/${account}/user`, { headers: { "x-api-key": apiKey } });
  return { status: response.status, code: response.status >= 400 ? (JSON.parse(String(response.body)) as { code: string }).code : undefined };
};
const setStatus = async (account: string, status: "ACTIVE" | "REAUTH_REQUIRED") => {
  // As another instance sharing the database would (a refresh that failed there).
  await app.database.prisma.connectedAccount.updateMany({ where: { deploymentId: ada.deploymentId, account }, data: { status } });
};

describe("the connection rows the proxy reuses", () => {
  test("a change made by another instance is seen within a second", async () => {
    expect(await proxied("alice")).toEqual({ status: 200, code: undefined });
    await setStatus("alice", "REAUTH_REQUIRED");
    clock.advance(CONNECTION_IN_USE_TTL_MS - 1);
    expect((await proxied("alice")).status).toBe(200);
    clock.advance(1);
    expect(await proxied("alice")).toEqual({ status: 409, code: "reauth_required" });
    // A lapsed connection is read each time: once fixed it works at once.
    await setStatus("alice", "ACTIVE");
    expect((await proxied("alice")).status).toBe(200);
  });

  test("a connection made a moment ago works at once: a missing one is never remembered", async () => {
    expect(await proxied("bob")).toEqual({ status: 404, code: "connection_not_found" });
    await connectAccount(app, ada, { connector: "github", account: "bob", provider: github });
    expect((await proxied("bob")).status).toBe(200);
  });

  test("a connection deleted on this instance is refused at once, and nothing reaches the provider", async () => {
    expect((await proxied("bob")).status).toBe(200);
    const deleted = await raw(`${app.url}/api/v1/connections/github/bob`, { method: "DELETE", headers: { "x-api-key": ada.apiKey } });
    expect(deleted.status).toBe(204);
    const seen = api.seen.length;
    expect(await proxied("bob")).toEqual({ status: 409, code: "connection_disconnected" });
    expect(api.seen.length).toBe(seen);
  });
});

// The proxy trusts an API key it verified for up to VERIFIED_KEY_TTL_MS without asking the database.
describe("the API keys the proxy remembers", () => {
  test("a key replaced on this instance is refused at once; its successor works at once", async () => {
    const kay = await createOperator(app, "Kay");
    await connectAccount(app, kay, { connector: "github", account: "carol", provider: github });
    for (let i = 0; i < 2; i++) expect((await proxied("carol", kay.apiKey)).status).toBe(200);
    const { generateApiKey } = ok(await app.gql(GenerateApiKey, { deploymentId: kay.deploymentId }, { token: kay.token }));
    expect(await proxied("carol", kay.apiKey)).toEqual({ status: 401, code: "invalid_api_key" });
    expect((await proxied("carol", generateApiKey.apiKey)).status).toBe(200);
  });

  test("a key revoked by another instance is refused within VERIFIED_KEY_TTL_MS", async () => {
    const lee = await createOperator(app, "Lee");
    await connectAccount(app, lee, { connector: "github", account: "dave", provider: github });
    expect((await proxied("dave", lee.apiKey)).status).toBe(200);
    // As another instance sharing the database would: its own cache is dropped, not this one's.
    await app.database.prisma.apiKey.updateMany({ where: { deploymentId: lee.deploymentId }, data: { revokedAt: clock.now() } });
    clock.advance(VERIFIED_KEY_TTL_MS - 1);
    expect((await proxied("dave", lee.apiKey)).status).toBe(200);
    clock.advance(1);
    expect(await proxied("dave", lee.apiKey)).toEqual({ status: 401, code: "invalid_api_key" });
  });
});
