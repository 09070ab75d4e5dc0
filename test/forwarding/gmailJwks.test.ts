/**
 * Gmail's Pub/Sub pushes are verified against Google's JWKS, which Switchyard has to fetch. Every
 * push is unauthenticated until verified, so the fetch must not be theirs to trigger at will: none
 * without a push audience configured, one shared fetch for concurrent pushes, and a failure
 * remembered briefly instead of a new outbound connection per push. Counted at a fake JWKS server.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createJwksCache, JWKS_FAILURE_MEMORY_MS } from "../../src/forwarding/jwksCache.ts";
import { fakeClock } from "../helpers/clock.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/** A JWKS host that counts requests and answers 503 until told to serve keys. */
function startJwksHost() {
  let requests = 0;
  let healthy = false;
  const server: Server = createServer((_req, res) => {
    requests++;
    if (!healthy) {
      res.writeHead(503).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [] }));
  });
  return new Promise<{ url: string; requests: () => number; heal: () => void; close: () => Promise<void> }>((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth2/v3/certs`,
        requests: () => requests,
        heal: () => {
          healthy = true;
        },
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

let jwksHost: Awaited<ReturnType<typeof startJwksHost>>;
let app: TestApp;
let ada: Operator;

beforeAll(async () => {
  jwksHost = await startJwksHost();
  // No CONNECTOR_GMAIL_WEBHOOK_SECRET: no push audience unless a deployment configures one.
  app = await startTestApp({ CONNECTOR_GMAIL_JWKS_URL: jwksHost.url });
  ada = await createOperator(app, "Ada");
});
afterAll(async () => {
  await app?.close();
  await jwksHost?.close();
});

const push = (deploymentId: string) =>
  fetch(`${app.url}/webhooks/${deploymentId}/gmail`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer eyJhbGciOiJSUzI1NiIsImtpZCI6Im5vcGUifQ.e30.c2ln" },
    body: JSON.stringify({ message: { data: "e30=", messageId: "1" }, subscription: "projects/p/subscriptions/s" }),
  });

describe("Gmail pushes and the JWKS fetch", () => {
  test("without a push audience configured, twenty pushes are refused without fetching the JWKS at all", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => push(ada.deploymentId)));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(401));
    expect(await answers[0].json()).toMatchObject({ code: "invalid_signature" });
    expect(jwksHost.requests()).toBe(0);
  });

  test("with an audience and the JWKS host down, twenty concurrent pushes share one fetch, and the failure is remembered", async () => {
    ok(
      await app.gql(
        `mutation ($deploymentId: ID!) { setConnectorCredentials(deploymentId: $deploymentId, connector: "gmail",
           input: { clientId: "own-client", clientSecret: "own-secret", webhookSecret: "https://switchyard.example/push" }) { webhookSecretSet } }`,
        { deploymentId: ada.deploymentId },
        { token: ada.token },
      ),
    );
    const concurrent = await Promise.all(Array.from({ length: 20 }, () => push(ada.deploymentId)));
    expect(concurrent.map((r) => r.status)).toEqual(Array(20).fill(401));
    expect(jwksHost.requests()).toBe(1);

    for (let i = 0; i < 20; i++) expect((await push(ada.deploymentId)).status).toBe(401);
    expect(jwksHost.requests()).toBe(1);
  });

  test(`a remembered failure is retried after ${JWKS_FAILURE_MEMORY_MS / 1000} s, and keys once fetched are kept`, async () => {
    const clock = fakeClock();
    const cache = createJwksCache({ clock });
    const before = jwksHost.requests();
    await expect(cache.get(jwksHost.url)).rejects.toThrow("HTTP 503");
    await expect(cache.get(jwksHost.url)).rejects.toThrow("HTTP 503");
    expect(jwksHost.requests()).toBe(before + 1);

    jwksHost.heal();
    clock.advance(JWKS_FAILURE_MEMORY_MS - 1);
    await expect(cache.get(jwksHost.url)).rejects.toThrow("HTTP 503");
    expect(jwksHost.requests()).toBe(before + 1);
    clock.advance(1);
    expect(await cache.get(jwksHost.url)).toEqual({ keys: [] });
    expect(await cache.get(jwksHost.url)).toEqual({ keys: [] });
    expect(jwksHost.requests()).toBe(before + 2);
  });
});
