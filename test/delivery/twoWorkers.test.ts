import { afterAll, beforeAll, expect, test } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { type Database, openDatabase } from "../../src/db/database.ts";
import { type App, buildApp } from "../../src/app.ts";
import type { DeliveryWorker } from "../../src/delivery/worker.ts";
import { createLogger } from "../../src/log.ts";
import { DeploymentDeliveries, SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { createOperator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * Several instances against one PostgreSQL share the queue: two workers, each on its own
 * connection pool (as two processes would be), claim with FOR UPDATE SKIP LOCKED and deliver
 * every event exactly once between them. PGlite is one process per database, so this story is
 * PostgreSQL's only.
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
if (!onPostgres) console.log("twoWorkers.test.ts: skipped on PGlite (one process owns an embedded database); set TEST_DATABASE_URL to run it.");

const EVENTS = 150;
let app: TestApp;
let receiver: Receiver;
let second: Database | undefined;
let secondApp: App | undefined;
const workers: DeliveryWorker[] = [];

beforeAll(async () => {
  if (!onPostgres) return;
  receiver = await startReceiver();
  // A little latency at the receiver, so both workers have attempts in flight at the same time.
  receiver.respond(() => new Promise((resolve) => setTimeout(() => resolve(200), 5)));
  app = await startTestApp({}, { worker: false });
  const config = app.app.config;
  second = await openDatabase({ kind: "postgresql", url: app.databaseUrl!, poolSize: 5 }, createLogger("silent"));
  workers.push(
    app.app.createDeliveryWorker({ concurrency: 8, pollIntervalMs: 20 }),
    (secondApp = buildApp({ config, logger: createLogger("silent"), database: second })).createDeliveryWorker({ concurrency: 8, pollIntervalMs: 20 }),
  );
});
afterAll(async () => {
  if (!onPostgres) return;
  await Promise.all(workers.map((w) => w.stop()));
  await secondApp?.close();
  await second?.close();
  await app.close();
  await receiver.close();
});

test.skipIf(!onPostgres)("two workers on one PostgreSQL deliver each event once", async () => {
  const ada = await createOperator(app, "Ada");
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/two`, triggers: [] } }, { token: ada.token }));
  const ids: string[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const { sendTestEvent } = ok(await app.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { apiKey: ada.apiKey }));
    ids.push(sendTestEvent.id);
  }
  // Everything is queued before either worker starts: they race for the same rows.
  for (const worker of workers) worker.start();
  await receiver.waitFor((requests) => new Set(requests.map((r) => r.headers["webhook-id"])).size === EVENTS, 60_000);

  const perId = new Map<string, number>();
  for (const request of receiver.requests) perId.set(String(request.headers["webhook-id"]), (perId.get(String(request.headers["webhook-id"])) ?? 0) + 1);
  expect([...perId.keys()].sort()).toEqual([...ids].sort());
  expect([...perId.values()].every((n) => n === 1)).toBe(true);

  const { deployment } = ok(await app.gql(DeploymentDeliveries, { id: ada.deploymentId, limit: 100, status: "SUCCEEDED" }, { token: ada.token }));
  expect(deployment!.deliveries.every((d) => d.attempts === 1 && d.attemptLog.length === 1)).toBe(true);
});
