import { afterAll, beforeAll, expect, test } from "vitest";
import { type Database, openDatabase } from "../../src/db/database.ts";
import { type App, buildApp } from "../../src/app.ts";
import type { DeliveryWorker } from "../../src/delivery/worker.ts";
import { createLogger } from "../../src/log.ts";
import { SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { PauseForwarding, ResumeForwarding } from "../helpers/operations.ts";
import { createOperator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * Pausing, resuming and re-targeting with two instances on one PostgreSQL: the pause is made
 * through one instance while the other instance's worker is the one polling, so nothing but the
 * database carries it. PostgreSQL only (PGlite is one process per database).
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
if (!onPostgres) console.log("twoInstancesSteering.test.ts: skipped on PGlite; set TEST_DATABASE_URL to run it.");

const EVENTS = 20;
let app: TestApp;
let receiver: Receiver;
let second: Database | undefined;
let secondApp: App | undefined;
let worker: DeliveryWorker | undefined;

beforeAll(async () => {
  if (!onPostgres) return;
  receiver = await startReceiver();
  app = await startTestApp({}, { worker: false });
  second = await openDatabase({ kind: "postgresql", url: app.databaseUrl!, poolSize: 5 }, createLogger("silent"));
  // Only the second instance sends; the first takes the operator's requests.
  secondApp = buildApp({ config: app.app.config, logger: createLogger("silent"), database: second });
  worker = secondApp.createDeliveryWorker({ concurrency: 8, pollIntervalMs: 20 });
  worker.start();
});
afterAll(async () => {
  if (!onPostgres) return;
  await worker?.stop();
  await secondApp?.close();
  await second?.close();
  await app.close();
  await receiver.close();
});

test.skipIf(!onPostgres)("a pause made on one instance holds the other instance's worker; resume there sends each event once, to the new URL", async () => {
  const ada = await createOperator(app, "Ada");
  const save = (path: string) =>
    app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}${path}`, triggers: [] } }, { token: ada.token });
  ok(await save("/before"));
  ok(await app.gql(PauseForwarding, { deploymentId: ada.deploymentId }, { token: ada.token }));
  const ids: string[] = [];
  for (let i = 0; i < EVENTS; i++) {
    ids.push(ok(await app.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { apiKey: ada.apiKey })).sendTestEvent.id);
  }
  // The other worker polls every 20 ms: a second is fifty chances to get it wrong.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(receiver.requests).toEqual([]);

  ok(await save("/after"));
  ok(await app.gql(ResumeForwarding, { deploymentId: ada.deploymentId }, { token: ada.token }));
  await receiver.waitFor((requests) => new Set(requests.map((r) => r.headers["webhook-id"])).size === EVENTS, 60_000);
  expect(receiver.requests.map((r) => String(r.headers["webhook-id"])).sort()).toEqual([...ids].sort());
  expect(receiver.requests.every((r) => r.path === "/after")).toBe(true);
});
