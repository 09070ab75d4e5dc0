import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, expect, test } from "vitest";
import { apiSchema } from "../../src/connectors/api.ts";
import { findConnector } from "../../src/connectors/registry.ts";
import type { ConnectorDefinition, NormalizedEvent } from "../../src/connectors/types.ts";
import { createPoller } from "../../src/polling/poller.ts";
import { fakeClock } from "../helpers/clock.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The poller end to end on the database with a connector whose API base is per tenant: Aircall's
 * declared reader, re-declared with `api.connectionBaseUrl: "{baseUrl}/tenants/{tenant}"` and its token in an
 * `x-api-token` header. Each connection is read under its own tenant's base (the tenant from its
 * params, or from its identity metadata), never under the bare apiUrl nor with a bearer token; a
 * connection with no tenant fails its read and stays scheduled.
 */
const INTERVAL_MS = 60_000;
const clock = fakeClock(new Date("2026-03-01T12:00:00.000Z"));
const aircall = findConnector("aircall")!;
const tenantAircall: ConnectorDefinition = {
  ...aircall,
  declaration: { ...aircall.declaration, api: apiSchema.parse({ connectionBaseUrl: "{baseUrl}/tenants/{tenant}", placeholders: { tenant: "company.slug" }, auth: { style: "header", header: "x-api-token" } }) },
};
let app: TestApp;
let ada: Operator;
let server: Server;
let apiUrl: string;
const requests: { path: string; headers: IncomingMessage["headers"] }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    requests.push({ path: url.pathname, headers: req.headers });
    const tenant = /^\/tenants\/([a-z]+)\/v1\/calls$/.exec(url.pathname)?.[1];
    const ok = tenant && req.headers["x-api-token"] === `token-${tenant}` && !req.headers.authorization;
    res.writeHead(ok ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(ok ? { calls: [{ id: 1, started_at: 1_772_366_400 }] } : { error: "not found" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = await startTestApp({ POLL_INTERVAL: "60s" }, { clock });
  ada = await createOperator(app, "Ada");
  await app.database.prisma.forwardingTrigger.create({ data: { deploymentId: ada.deploymentId, connector: "aircall", trigger: "call_created" } });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

test("each connection is read under its own tenant's API base with the token in the declared header", async () => {
  const connect = (account: string, data: { params?: object; metadata?: object }) =>
    app.database.prisma.connectedAccount.create({
      data: { deploymentId: ada.deploymentId, connector: "aircall", account, externalId: `user-${account}`, accessTokenEncrypted: app.app.box.seal("unused"), scopes: [], ...data },
    });
  const accounts = await Promise.all([connect("acme", { params: { tenant: "acme" } }), connect("globex", { metadata: { company: { slug: "globex" } } }), connect("orphan", {})]);
  const tokens = new Map(accounts.map((a) => [a.id, `token-${a.account}`]));
  const outcomes: string[] = [];
  const accepted: NormalizedEvent[] = [];
  const poller = createPoller(
    {
      sql: app.database.workerSql,
      clock,
      logger: pino({ level: "silent" }),
      connectorEnv: { CONNECTOR_AIRCALL_API_URL: apiUrl },
      allowHttpApiBase: true,
      accessTokens: { fresh: async (id: string) => tokens.get(id)! },
      inboundEvents: {
        acceptEvents: async (_deployment, _def, events) => {
          accepted.push(...events);
          return { recorded: events.length } as never;
        },
        pollAccount: async () => ({ recorded: 0 }) as never,
      },
      inboundSecrets: { get: async () => undefined },
      databaseOutage: { noted: () => false },
      diskSpace: { low: () => undefined },
      lifecycle: { emitFor: async () => undefined },
      metrics: { polled: (_connector, outcome) => void outcomes.push(outcome) },
      connectors: [tenantAircall],
    },
    { intervalMs: INTERVAL_MS },
  );
  await poller.runOnce();
  clock.advance(INTERVAL_MS);
  const round = await poller.runOnce();
  expect(round.polled).toBe(3);
  expect(requests.map((r) => r.path).sort()).toEqual(["/tenants/acme/v1/calls", "/tenants/globex/v1/calls"]);
  for (const request of requests) expect(request.headers["x-api-token"]).toBe(`token-${request.path.split("/")[2]}`);
  // The tenantless connection failed its read (counted and logged), not the round; it stays scheduled.
  expect(outcomes.sort()).toEqual(["error", "ok", "ok"]);
  const orphan = await app.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id: accounts[2].id } });
  expect(orphan.nextPollAt!.getTime()).toBeGreaterThan(clock.now().getTime());
  expect(accepted).toEqual([]); // First reads only record the position.
});
