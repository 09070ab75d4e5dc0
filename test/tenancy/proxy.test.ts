import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { insertConnection, raw } from "../proxy/helpers.ts";

/**
 * A connection is its deployment's alone: another deployment's key (of another organization, or
 * the same organization's other deployment) gets 404 connection_not_found from the token endpoint
 * and the proxy, exactly like a connection that does not exist — and nothing reaches the provider.
 */
let app: TestApp;
let provider: Server;
let reached = 0;
let owner: Operator;
let stranger: Operator;

beforeAll(async () => {
  provider = createServer((req, res) => {
    reached++;
    res.end("{}");
  });
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
  app = await startTestApp({ CONNECTOR_GITHUB_API_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}` });
  [owner, stranger] = [await createOperator(app, "Owner"), await createOperator(app, "Stranger")];
  await insertConnection(app, { deploymentId: owner.deploymentId, connector: "github", account: "alice", accessToken: "gho_owner_only" });
}, 60_000);
afterAll(async () => {
  await app?.close();
  provider?.closeAllConnections();
  await new Promise((resolve) => provider?.close(resolve));
});

test("the owner's key reaches the connection; another deployment's key sees 404 and nothing reaches the provider", async () => {
  const own = await raw(`${app.url}/api/v1/proxy/github/alice/user`, { headers: { "x-api-key": owner.apiKey } });
  expect(own.status).toBe(200);
  expect(reached).toBe(1);

  for (const path of ["/api/v1/proxy/github/alice/user", "/api/v1/connections/github/alice/token"]) {
    for (const method of path.includes("proxy") ? ["GET", "POST", "DELETE"] : ["GET"]) {
      const answer = await raw(`${app.url}${path}`, { method, headers: { "x-api-key": stranger.apiKey } });
      expect(answer.status, `${method} ${path}`).toBe(404);
      const body = JSON.parse(String(answer.body));
      expect(body.code).toBe("connection_not_found");
      expect(JSON.stringify(body)).not.toContain("gho_owner_only");
      // The same answer as a connection that was never made.
      const never = await raw(`${app.url}${path.replace("alice", "nobody")}`, { method, headers: { "x-api-key": stranger.apiKey } });
      expect(JSON.parse(String(never.body)).detail).toBe(body.detail.replace('"alice"', '"nobody"'));
    }
  }
  expect(reached).toBe(1);
});
