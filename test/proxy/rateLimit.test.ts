/**
 * `proxyRateLimitPerMinute` in a deployment's Connect settings: each connection may send that many
 * requests through the proxy per minute; past it 429 `rate_limited` with Retry-After and
 * `x-switchyard-error: true`, and the provider is not called. Saved with saveConnectSettings (the
 * console's Connect settings field), which refuses a bad value — and wildcard or non-DNS origins —
 * with BAD_USER_INPUT naming the field.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { insertConnection, raw } from "./helpers.ts";

const Save = graphql(`
  mutation ProxyLimitSaveConnectSettings($deploymentId: ID!, $input: ConnectSettingsInput!) {
    saveConnectSettings(deploymentId: $deploymentId, input: $input) { allowedRedirectOrigins proxyRateLimitPerMinute }
  }
`);
const Read = graphql(`
  query ProxyLimitConnectSettings($id: ID!) {
    deployment(id: $id) { id connectSettings { allowedRedirectOrigins proxyRateLimitPerMinute } }
  }
`);

let provider: Server;
let calls = 0;
let app: TestApp;
let ada: Operator;
let bob: Operator;

beforeAll(async () => {
  provider = createServer((_req, res) => {
    calls++;
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
  app = await startTestApp({ CONNECTOR_GITHUB_API_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}` });
  [ada, bob] = [await createOperator(app, "Ada"), await createOperator(app, "Bob")];
  for (const account of ["one", "two"]) await insertConnection(app, { deploymentId: ada.deploymentId, connector: "github", account, accessToken: "gho_x" });
  await insertConnection(app, { deploymentId: bob.deploymentId, connector: "github", account: "one", accessToken: "gho_y" });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => provider?.close(resolve));
});

const proxied = (operator: Operator, account: string) => raw(`${app.url}/api/v1/proxy/github/${account}/user`, { headers: { "x-api-key": operator.apiKey } });

describe("proxyRateLimitPerMinute", () => {
  test("unset by default: no limit", async () => {
    const read = ok(await app.gql(Read, { id: ada.deploymentId }, { token: ada.token }));
    expect(read.deployment?.connectSettings.proxyRateLimitPerMinute).toBeNull();
    for (let i = 0; i < 5; i++) expect((await proxied(bob, "one")).status).toBe(200);
  });

  test("over the limit: 429 rate_limited with Retry-After and x-switchyard-error, the provider not called; per connection", async () => {
    const saved = ok(await app.gql(Save, { deploymentId: ada.deploymentId, input: { allowedRedirectOrigins: [], proxyRateLimitPerMinute: 3 } }, { token: ada.token }));
    expect(saved.saveConnectSettings.proxyRateLimitPerMinute).toBe(3);
    calls = 0;
    for (let i = 0; i < 3; i++) expect((await proxied(ada, "one")).status).toBe(200);
    const over = await proxied(ada, "one");
    expect(over.status).toBe(429);
    expect(JSON.parse(String(over.body)).code).toBe("rate_limited");
    expect(Number(over.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(over.headers["x-switchyard-error"]).toBe("true");
    expect(calls).toBe(3);
    // Another connection of the deployment has its own count; another deployment has no limit.
    expect((await proxied(ada, "two")).status).toBe(200);
    expect((await proxied(bob, "one")).status).toBe(200);
  });

  test("kept when a save leaves it out, removed with null", async () => {
    const kept = ok(await app.gql(Save, { deploymentId: ada.deploymentId, input: { allowedRedirectOrigins: ["https://app.example.com"] } }, { token: ada.token }));
    expect(kept.saveConnectSettings.proxyRateLimitPerMinute).toBe(3);
    const removed = ok(await app.gql(Save, { deploymentId: ada.deploymentId, input: { allowedRedirectOrigins: [], proxyRateLimitPerMinute: null } }, { token: ada.token }));
    expect(removed.saveConnectSettings.proxyRateLimitPerMinute).toBeNull();
  });

  test.each([0, -1, 1_000_001])("%s is BAD_USER_INPUT naming proxyRateLimitPerMinute", async (value) => {
    const result = await app.gql(Save, { deploymentId: ada.deploymentId, input: { allowedRedirectOrigins: [], proxyRateLimitPerMinute: value } }, { token: ada.token });
    expect(errorCode(result)).toBe("BAD_USER_INPUT");
    expect(JSON.stringify(result.errors)).toContain("proxyRateLimitPerMinute");
  });
});

describe("allowedRedirectOrigins", () => {
  test.each(["https://*.example.com", "https://app_1.example.com", "https://*"])("%s is refused with a message naming the field", async (origin) => {
    const result = await app.gql(Save, { deploymentId: ada.deploymentId, input: { allowedRedirectOrigins: [origin] } }, { token: ada.token });
    expect(errorCode(result)).toBe("BAD_USER_INPUT");
    expect(result.errors?.[0].message).toContain("allowedRedirectOrigins");
    expect(result.errors?.[0].message).toContain(origin);
    const read = ok(await app.gql(Read, { id: ada.deploymentId }, { token: ada.token }));
    expect(read.deployment?.connectSettings.allowedRedirectOrigins).not.toContain(origin);
  });
});
