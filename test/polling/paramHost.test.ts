import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { createPoller } from "../../src/polling/poller.ts";
import { fakeClock } from "../helpers/clock.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * A connector whose API host names a connection parameter (ActiveCampaign's
 * `https://{account}.api-us1.com`) is polled at each connection's own host, filled from its
 * params, with the key in the declared `Api-Token` header. The API URL override keeps the
 * placeholder (served here under a path naming it, as the fake providers do).
 */
const INTERVAL_MS = 60_000;
const clock = fakeClock(new Date("2026-03-01T12:00:00.000Z"));
let app: TestApp;
let ada: Operator;
let server: Server;
let apiUrl: string;
const requests: { path: string; headers: IncomingMessage["headers"] }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    requests.push({ path: url.pathname, headers: req.headers });
    const ok = url.pathname === "/acme/api/3/contacts" && req.headers["api-token"] === "key-of-acme";
    res.writeHead(ok ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(ok ? { contacts: [{ id: "1", cdate: "2026-03-01T11:00:00-06:00" }] } : { message: "No Result found" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/{account}`;
  app = await startTestApp({ POLL_INTERVAL: "60s" }, { clock });
  ada = await createOperator(app, "Ada");
  await app.database.prisma.forwardingTrigger.create({ data: { deploymentId: ada.deploymentId, connector: "activecampaign", trigger: "contact_added" } });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

test("each ActiveCampaign connection is read at its own account's host", async () => {
  const account = await app.database.prisma.connectedAccount.create({
    data: { deploymentId: ada.deploymentId, connector: "activecampaign", account: "acme", externalId: "1", accessTokenEncrypted: app.app.box.seal("unused"), scopes: [], params: { account: "acme" } },
  });
  const outcomes: string[] = [];
  const poller = createPoller(
    {
      sql: app.database.workerSql,
      clock,
      logger: pino({ level: "silent" }),
      connectorEnv: { CONNECTOR_ACTIVECAMPAIGN_API_URL: apiUrl },
      allowHttpApiBase: true,
      accessTokens: { fresh: async (id: string) => (id === account.id ? "key-of-acme" : "other") },
      inboundEvents: { acceptEvents: async () => ({ recorded: 0 }) as never, pollAccount: async () => ({ recorded: 0 }) as never },
      inboundSecrets: { get: async () => undefined },
      databaseOutage: { noted: () => false },
      diskSpace: { low: () => undefined },
      lifecycle: { emitFor: async () => undefined },
      metrics: { polled: (_connector, outcome) => void outcomes.push(outcome) },
      connectors: [findConnector("activecampaign")!],
    },
    { intervalMs: INTERVAL_MS },
  );
  await poller.runOnce();
  clock.advance(INTERVAL_MS);
  await poller.runOnce();
  expect(requests.map((r) => r.path)).toEqual(["/acme/api/3/contacts"]);
  expect(outcomes).toEqual(["ok"]);
});
